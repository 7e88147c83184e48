package io.nodelabeller.template;

import io.nodelabeller.template.GoLayout.Chunk;
import io.nodelabeller.template.GoLayout.Std;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;

import static io.nodelabeller.template.GoLayout.next;

/**
 * A Go {@code time.Time} as Sprig's date functions make and read it: an instant ({@code seconds} since the Unix epoch
 * and {@code nanos}), a {@link GoZone}, and the monotonic reading {@code time.Now} attaches ({@code null} when there
 * is none; {@code In}, {@code UTC} and {@code Local} drop it, as in Go). {@link #format} and
 * {@link GoTimeParse#parse} read layouts as Go's time/format.go does ({@link GoLayout}): the reference time
 * {@code Mon Jan 2 15:04:05 MST 2006} and its elements
 * ({@code 2006 06 Jan January 01 1 Mon Monday 2 _2 02 __2 002 15 3 03 4 04 5 05 PM pm MST}, the numeric zones
 * {@code -0700 -07:00 -07 -070000 -07:00:00}, their {@code Z} forms, and fractional seconds {@code .000}/{@code ,999}).
 */
record GoTime(long seconds, int nanos, GoZone zone, Long monotonic) implements Receiver {

    /** Go's zero Time: January 1, year 1, 00:00:00 UTC. */
    static final GoTime ZERO = new GoTime(-62135596800L, 0, GoZone.UTC, null);

    static final String RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00";


    Instant instant() {
        return Instant.ofEpochSecond(seconds, nanos);
    }

    /** Time.In: the same instant in {@code z}, without a monotonic reading. */
    GoTime in(GoZone z) {
        return new GoTime(seconds, nanos, z, null);
    }

    /** Time.Add. */
    GoTime add(long durationNanos) {
        long total = nanos + durationNanos % 1_000_000_000L;
        return new GoTime(seconds + durationNanos / 1_000_000_000L + Math.floorDiv(total, 1_000_000_000L),
                (int) Math.floorMod(total, 1_000_000_000L), zone,
                monotonic == null ? null : monotonic + durationNanos);
    }

    /** Time.Sub: monotonic readings when both have one, else the instants; saturated as Go's Duration is. */
    long sub(GoTime u) {
        if (monotonic != null && u.monotonic != null) {
            return monotonic - u.monotonic;
        }
        try {
            return Math.addExact(Math.multiplyExact(Math.subtractExact(seconds, u.seconds), 1_000_000_000L), nanos - u.nanos);
        } catch (ArithmeticException e) {
            return seconds > u.seconds ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /** Time.Format. */
    String format(String layout) {
        Instant at = instant();
        int offset = zone.offset(at);
        LocalDateTime t = wall(offset);
        StringBuilder b = new StringBuilder();
        String l = layout;
        while (!l.isEmpty()) {
            Chunk c = next(l);
            b.append(c.prefix());
            if (c.std() == null) {
                break;
            }
            l = c.suffix();
            int hour = t.getHour();
            int hour12 = hour % 12 == 0 ? 12 : hour % 12;
            switch (c.std()) {
                case YEAR -> pad(b, Math.abs(t.getYear()) % 100, 2);
                case LONG_YEAR -> pad(b, t.getYear(), 4);
                case MONTH -> b.append(GoNamedInt.MONTHS[t.getMonthValue() - 1], 0, 3);
                case LONG_MONTH -> b.append(GoNamedInt.MONTHS[t.getMonthValue() - 1]);
                case NUM_MONTH -> pad(b, t.getMonthValue(), 0);
                case ZERO_MONTH -> pad(b, t.getMonthValue(), 2);
                case WEEKDAY -> b.append(GoNamedInt.DAYS[t.getDayOfWeek().getValue() % 7], 0, 3);
                case LONG_WEEKDAY -> b.append(GoNamedInt.DAYS[t.getDayOfWeek().getValue() % 7]);
                case DAY -> pad(b, t.getDayOfMonth(), 0);
                case UNDER_DAY -> pad(b.append(t.getDayOfMonth() < 10 ? " " : ""), t.getDayOfMonth(), 0);
                case ZERO_DAY -> pad(b, t.getDayOfMonth(), 2);
                case UNDER_YEARDAY -> pad(b.append(t.getDayOfYear() < 100 ? t.getDayOfYear() < 10 ? "  " : " " : ""),
                        t.getDayOfYear(), 0);
                case ZERO_YEARDAY -> pad(b, t.getDayOfYear(), 3);
                case HOUR -> pad(b, hour, 2);
                case HOUR12 -> pad(b, hour12, 0);
                case ZERO_HOUR12 -> pad(b, hour12, 2);
                case MINUTE -> pad(b, t.getMinute(), 0);
                case ZERO_MINUTE -> pad(b, t.getMinute(), 2);
                case SECOND -> pad(b, t.getSecond(), 0);
                case ZERO_SECOND -> pad(b, t.getSecond(), 2);
                case PM -> b.append(hour >= 12 ? "PM" : "AM");
                case PM_LOWER -> b.append(hour >= 12 ? "pm" : "am");
                case TZ -> {
                    String name = zone.abbreviation(at);
                    if (!name.isEmpty()) {
                        b.append(name);
                    } else {
                        int minutes = offset / 60;
                        b.append(minutes < 0 ? '-' : '+');
                        pad(b, Math.abs(minutes) / 60, 2);
                        pad(b, Math.abs(minutes) % 60, 2);
                    }
                }
                case FRAC_0, FRAC_9 -> fraction(b, nanos, c);
                default -> offset(b, offset, c.std());
            }
        }
        return b.toString();
    }

    private static void offset(StringBuilder b, int offset, Std std) {
        if (offset == 0 && std.iso()) {
            b.append('Z');
            return;
        }
        int minutes = Math.abs(offset / 60);
        b.append(offset / 60 < 0 ? '-' : '+');
        pad(b, minutes / 60, 2);
        if (std.colon()) {
            b.append(':');
        }
        if (!std.short_()) {
            pad(b, minutes % 60, 2);
        }
        if (std.withSeconds()) {
            if (std.colon()) {
                b.append(':');
            }
            pad(b, Math.abs(offset) % 60, 2);
        }
    }

    private static void fraction(StringBuilder b, int nanos, Chunk c) {
        boolean trim = c.std() == Std.FRAC_9;
        if (trim && (c.digits() == 0 || nanos == 0)) {
            return;
        }
        StringBuilder f = new StringBuilder().append(c.separator());
        pad(f, nanos, 9);
        if (c.digits() < 9) {
            f.setLength(f.length() - 9 + c.digits());
        }
        if (trim) {
            while (f.length() > 0 && f.charAt(f.length() - 1) == '0') {
                f.setLength(f.length() - 1);
            }
            if (f.length() > 0 && f.charAt(f.length() - 1) == c.separator()) {
                f.setLength(f.length() - 1);
            }
        }
        b.append(f);
    }

    /** time/format.go's appendInt: the decimal form of {@code x}, its digits zero-padded to {@code width}. */
    private static StringBuilder pad(StringBuilder b, long x, int width) {
        String digits = Long.toString(Math.abs(x));
        if (x < 0) {
            b.append('-');
        }
        b.append("0".repeat(Math.max(0, width - digits.length())));
        return b.append(digits);
    }

    /** Time.String: {@code 2006-01-02 15:04:05.999999999 -0700 MST}, then {@code m=±s.nnnnnnnnn} with a monotonic reading. */
    @Override
    public String toString() {
        String s = format("2006-01-02 15:04:05.999999999 -0700 MST");
        if (monotonic == null) {
            return s;
        }
        long m = Math.abs(monotonic);
        StringBuilder b = new StringBuilder(s).append(" m=").append(monotonic < 0 ? '-' : '+').append(m / 1_000_000_000L)
                .append('.');
        return pad(b, m % 1_000_000_000L, 9).toString();
    }

    /**
     * A method of time.Time a template calls ({@code now.Unix}, {@code (now).Format "2006"}), with Go's checks of its
     * arguments; null when a time has no such method here.
     */
    @Override
    public Object call(String name, List<Object> args) throws TemplateException {
        switch (name) {
            case "Format" -> {
                return format(SprigText.string(name, Functions.arity(name, args, 1), 0));
            }
            case "AddDate" -> {
                Functions.arity(name, args, 3);
                // time.Date normalizes: January 31 plus one month is March 3 (or 2)
                LocalDateTime t = wall();
                try {
                    LocalDate day = LocalDate.of(Math.toIntExact(t.getYear() + SprigText.goInt(name, args, 0)), 1, 1)
                            .plusMonths(t.getMonthValue() - 1 + SprigText.goInt(name, args, 1))
                            .plusDays(t.getDayOfMonth() - 1 + SprigText.goInt(name, args, 2));
                    return date(day.atTime(t.toLocalTime().withNano(0)).toEpochSecond(ZoneOffset.UTC), nanos, zone);
                } catch (ArithmeticException | java.time.DateTimeException e) {
                    throw new TemplateException("AddDate: a date beyond the years a time can hold");
                }
            }
            case "Before", "After", "Equal", "Compare", "Sub" -> {
                Functions.arity(name, args, 1);
                if (!(args.get(0) instanceof GoTime u)) {
                    throw new TemplateException("wrong type for value; expected time.Time; got " + GoFormat.typeName(args.get(0)));
                }
                if (name.equals("Sub")) {
                    return GoNamedInt.duration(sub(u));
                }
                int c = instant().compareTo(u.instant());
                return switch (name) {
                    case "Before" -> c < 0;
                    case "After" -> c > 0;
                    case "Equal" -> c == 0;
                    default -> (long) Integer.signum(c);
                };
            }
            case "Add" -> {
                return add(GoNamedInt.durationArg(name, Functions.arity(name, args, 1), 0));
            }
            case "Truncate", "Round" -> {
                long d = GoNamedInt.durationArg(name, Functions.arity(name, args, 1), 0);
                return name.equals("Truncate") ? truncate(d, false) : truncate(d, true);
            }
            default -> {
                Object v = method(name);
                if (v != null && !args.isEmpty()) {
                    throw new TemplateException("wrong number of args for " + name + ": want 0 got " + args.size());
                }
                return v;
            }
        }
    }

    /** Whether a time has the method {@code name} here. */
    @Override
    public boolean has(String name) {
        return List.of("Format", "AddDate", "Before", "After", "Equal", "Compare", "Sub", "Add", "Truncate", "Round")
                .contains(name) || method(name) != null;
    }

    /**
     * Time.Truncate / Time.Round: down to (or to the nearest, halves up) a multiple of {@code d} counted from Go's
     * zero time, without the monotonic reading; {@code d <= 0} only drops that reading.
     */
    private GoTime truncate(long d, boolean round) {
        if (d <= 0) {
            return new GoTime(seconds, nanos, zone, null);
        }
        java.math.BigInteger since = java.math.BigInteger.valueOf(seconds - ZERO.seconds)
                .multiply(java.math.BigInteger.valueOf(GoDuration.SECOND)).add(java.math.BigInteger.valueOf(nanos));
        long r = since.mod(java.math.BigInteger.valueOf(d)).longValue();
        GoTime down = new GoTime(seconds, nanos, zone, null).add(-r);
        return !round || Long.compareUnsigned(r + r, d) < 0 ? down : down.add(d);
    }

    private LocalDateTime wall() {
        return wall(zone.offset(instant()));
    }

    /** The wall clock at {@code offset} seconds east of UTC. */
    private LocalDateTime wall(int offset) {
        return LocalDateTime.ofEpochSecond(seconds + offset, nanos, ZoneOffset.UTC);
    }

    /** The methods without arguments a template may call on a time, or null. */
    private Object method(String name) {
        LocalDateTime t = wall();
        return switch (name) {
            case "Unix" -> new Int64(seconds);
            case "UnixMilli" -> new Int64(seconds * 1000 + nanos / 1_000_000);
            case "UnixMicro" -> new Int64(seconds * 1_000_000 + nanos / 1000);
            case "UnixNano" -> new Int64(seconds * 1_000_000_000 + nanos);
            case "Year" -> (long) t.getYear();
            case "YearDay" -> (long) t.getDayOfYear();
            case "Day" -> (long) t.getDayOfMonth();
            case "Hour" -> (long) t.getHour();
            case "Minute" -> (long) t.getMinute();
            case "Second" -> (long) t.getSecond();
            case "Nanosecond" -> (long) nanos;
            case "Month" -> GoNamedInt.month(t.getMonthValue());
            case "Weekday" -> GoNamedInt.weekday(t.getDayOfWeek().getValue() % 7);
            case "IsZero" -> seconds == ZERO.seconds && nanos == 0;
            case "IsDST" -> zone.rules() != null && zone.rules().getRules().isDaylightSavings(instant());
            case "UTC" -> in(GoZone.UTC);
            case "Local" -> in(GoZone.LOCAL);
            case "String" -> toString();
            default -> null;
        };
    }

    /** time/format.go's quote: ASCII as it is (quotes and backslashes escaped), every other byte as \xNN. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (byte x : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c >= 0x80 || c < ' ') {
                b.append(String.format("\\x%02x", c));
            } else {
                b.append(c == '"' || c == '\\' ? "\\" : "").append((char) c);
            }
        }
        return b.append('"').toString();
    }

    /** time.Date for a wall clock read as UTC seconds, in {@code z}: the offset {@code z} has at that wall time. */
    static GoTime date(long wallAsUtc, int nsec, GoZone z) {
        return new GoTime(z.instantOf(wallAsUtc), nsec, z, null);
    }

}
