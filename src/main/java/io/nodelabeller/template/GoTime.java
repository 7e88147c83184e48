package io.nodelabeller.template;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * A Go {@code time.Time} as Sprig's date functions make and read it: an instant ({@code seconds} since the Unix epoch
 * and {@code nanos}), a {@link GoZone}, and the monotonic reading {@code time.Now} attaches ({@code null} when there
 * is none; {@code In}, {@code UTC} and {@code Local} drop it, as in Go). {@link #format} and {@link #parse} read
 * layouts as Go's time/format.go does: the reference time {@code Mon Jan 2 15:04:05 MST 2006} and its elements
 * ({@code 2006 06 Jan January 01 1 Mon Monday 2 _2 02 __2 002 15 3 03 4 04 5 05 PM pm MST}, the numeric zones
 * {@code -0700 -07:00 -07 -070000 -07:00:00}, their {@code Z} forms, and fractional seconds {@code .000}/{@code ,999}).
 */
record GoTime(long seconds, int nanos, GoZone zone, Long monotonic) implements Receiver {

    /** Go's zero Time: January 1, year 1, 00:00:00 UTC. */
    static final GoTime ZERO = new GoTime(-62135596800L, 0, GoZone.UTC, null);

    static final String RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00";

    private static final String[] LONG_MONTHS = GoNamedInt.MONTHS;
    private static final String[] LONG_DAYS = GoNamedInt.DAYS;

    /** Layout elements (time/format.go's std values). */
    private enum Std {
        LONG_MONTH, MONTH, NUM_MONTH, ZERO_MONTH, LONG_WEEKDAY, WEEKDAY, DAY, UNDER_DAY, ZERO_DAY, UNDER_YEARDAY,
        ZERO_YEARDAY, HOUR, HOUR12, ZERO_HOUR12, MINUTE, ZERO_MINUTE, SECOND, ZERO_SECOND, LONG_YEAR, YEAR, PM, PM_LOWER,
        TZ, ISO8601_TZ, ISO8601_SECONDS_TZ, ISO8601_SHORT_TZ, ISO8601_COLON_TZ, ISO8601_COLON_SECONDS_TZ, NUM_TZ,
        NUM_SECONDS_TZ, NUM_SHORT_TZ, NUM_COLON_TZ, NUM_COLON_SECONDS_TZ, FRAC_0, FRAC_9;

        boolean iso() {
            return this == ISO8601_TZ || this == ISO8601_SECONDS_TZ || this == ISO8601_SHORT_TZ
                    || this == ISO8601_COLON_TZ || this == ISO8601_COLON_SECONDS_TZ;
        }

        boolean colon() {
            return this == ISO8601_COLON_TZ || this == NUM_COLON_TZ || this == ISO8601_COLON_SECONDS_TZ
                    || this == NUM_COLON_SECONDS_TZ;
        }

        boolean short_() {
            return this == ISO8601_SHORT_TZ || this == NUM_SHORT_TZ;
        }

        boolean withSeconds() {
            return this == ISO8601_SECONDS_TZ || this == NUM_SECONDS_TZ || this == ISO8601_COLON_SECONDS_TZ
                    || this == NUM_COLON_SECONDS_TZ;
        }
    }

    /** One element found in a layout: the text before it, the element ({@code null}: none left), the text after. */
    private record Chunk(String prefix, Std std, int digits, char separator, String suffix) {
    }

    private static Chunk chunk(String l, int i, int length, Std std) {
        return new Chunk(l.substring(0, i), std, 0, '.', l.substring(i + length));
    }

    private static boolean at(String l, int i, String s) {
        return l.startsWith(s, i);
    }

    /** time/format.go's nextStdChunk: the first layout element in {@code l}. */
    private static Chunk next(String l) {
        for (int i = 0; i < l.length(); i++) {
            char c = l.charAt(i);
            switch (c) {
                case 'J' -> {
                    if (at(l, i, "January")) {
                        return chunk(l, i, 7, Std.LONG_MONTH);
                    }
                    if (at(l, i, "Jan") && !lowerAt(l, i + 3)) {
                        return chunk(l, i, 3, Std.MONTH);
                    }
                }
                case 'M' -> {
                    if (at(l, i, "Monday")) {
                        return chunk(l, i, 6, Std.LONG_WEEKDAY);
                    }
                    if (at(l, i, "Mon") && !lowerAt(l, i + 3)) {
                        return chunk(l, i, 3, Std.WEEKDAY);
                    }
                    if (at(l, i, "MST")) {
                        return chunk(l, i, 3, Std.TZ);
                    }
                }
                case '0' -> {
                    if (i + 1 < l.length() && l.charAt(i + 1) >= '1' && l.charAt(i + 1) <= '6') {
                        Std[] zeroes = {Std.ZERO_MONTH, Std.ZERO_DAY, Std.ZERO_HOUR12, Std.ZERO_MINUTE, Std.ZERO_SECOND, Std.YEAR};
                        return chunk(l, i, 2, zeroes[l.charAt(i + 1) - '1']);
                    }
                    if (at(l, i, "002")) {
                        return chunk(l, i, 3, Std.ZERO_YEARDAY);
                    }
                }
                case '1' -> {
                    return at(l, i, "15") ? chunk(l, i, 2, Std.HOUR) : chunk(l, i, 1, Std.NUM_MONTH);
                }
                case '2' -> {
                    return at(l, i, "2006") ? chunk(l, i, 4, Std.LONG_YEAR) : chunk(l, i, 1, Std.DAY);
                }
                case '_' -> {
                    if (at(l, i, "_2")) {
                        if (at(l, i + 1, "2006")) {
                            // "_2006" is a literal underscore and the long year
                            return new Chunk(l.substring(0, i + 1), Std.LONG_YEAR, 0, '.', l.substring(i + 5));
                        }
                        return chunk(l, i, 2, Std.UNDER_DAY);
                    }
                    if (at(l, i, "__2")) {
                        return chunk(l, i, 3, Std.UNDER_YEARDAY);
                    }
                }
                case '3' -> {
                    return chunk(l, i, 1, Std.HOUR12);
                }
                case '4' -> {
                    return chunk(l, i, 1, Std.MINUTE);
                }
                case '5' -> {
                    return chunk(l, i, 1, Std.SECOND);
                }
                case 'P' -> {
                    if (at(l, i, "PM")) {
                        return chunk(l, i, 2, Std.PM);
                    }
                }
                case 'p' -> {
                    if (at(l, i, "pm")) {
                        return chunk(l, i, 2, Std.PM_LOWER);
                    }
                }
                case '-', 'Z' -> {
                    boolean z = c == 'Z';
                    String[] forms = {"070000", "07:00:00", "0700", "07:00", "07"};
                    Std[] iso = {Std.ISO8601_SECONDS_TZ, Std.ISO8601_COLON_SECONDS_TZ, Std.ISO8601_TZ, Std.ISO8601_COLON_TZ,
                        Std.ISO8601_SHORT_TZ};
                    Std[] num = {Std.NUM_SECONDS_TZ, Std.NUM_COLON_SECONDS_TZ, Std.NUM_TZ, Std.NUM_COLON_TZ, Std.NUM_SHORT_TZ};
                    for (int f = 0; f < forms.length; f++) {
                        if (at(l, i + 1, forms[f])) {
                            return chunk(l, i, forms[f].length() + 1, z ? iso[f] : num[f]);
                        }
                    }
                }
                case '.', ',' -> {
                    if (i + 1 < l.length() && (l.charAt(i + 1) == '0' || l.charAt(i + 1) == '9')) {
                        char d = l.charAt(i + 1);
                        int j = i + 1;
                        while (j < l.length() && l.charAt(j) == d) {
                            j++;
                        }
                        if (!(j < l.length() && isDigit(l.charAt(j)))) {
                            return new Chunk(l.substring(0, i), d == '0' ? Std.FRAC_0 : Std.FRAC_9, j - (i + 1), c,
                                    l.substring(j));
                        }
                    }
                }
                default -> {
                }
            }
        }
        return new Chunk(l, null, 0, '.', "");
    }

    private static boolean lowerAt(String s, int i) {
        return i < s.length() && s.charAt(i) >= 'a' && s.charAt(i) <= 'z';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

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
                case MONTH -> b.append(LONG_MONTHS[t.getMonthValue() - 1], 0, 3);
                case LONG_MONTH -> b.append(LONG_MONTHS[t.getMonthValue() - 1]);
                case NUM_MONTH -> pad(b, t.getMonthValue(), 0);
                case ZERO_MONTH -> pad(b, t.getMonthValue(), 2);
                case WEEKDAY -> b.append(LONG_DAYS[t.getDayOfWeek().getValue() % 7], 0, 3);
                case LONG_WEEKDAY -> b.append(LONG_DAYS[t.getDayOfWeek().getValue() % 7]);
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

    /** A parse failure, worded as Go's time.ParseError. */
    private static TemplateException error(String layout, String value, String layoutElem, String valueElem, String message) {
        return new TemplateException("parsing time " + quote(value) + (message.isEmpty()
                ? " as " + quote(layout) + ": cannot parse " + quote(valueElem) + " as " + quote(layoutElem) : message));
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

    private static final class Bad extends Exception {
        Bad() {
            super(null, null, false, false);
        }
    }

    /** A cursor over the value being parsed. */
    private static final class Cursor {
        String rest;

        Cursor(String rest) {
            this.rest = rest;
        }

        boolean digitAt(int i) {
            return i < rest.length() && isDigit(rest.charAt(i));
        }

        /** getnum: one or two digits (two when {@code fixed}). */
        int num(boolean fixed) throws Bad {
            if (!digitAt(0)) {
                throw new Bad();
            }
            if (!digitAt(1)) {
                if (fixed) {
                    throw new Bad();
                }
                int n = rest.charAt(0) - '0';
                rest = rest.substring(1);
                return n;
            }
            int n = (rest.charAt(0) - '0') * 10 + rest.charAt(1) - '0';
            rest = rest.substring(2);
            return n;
        }

        /** getnum3: one to three digits (three when {@code fixed}). */
        int num3(boolean fixed) throws Bad {
            int n = 0;
            int i = 0;
            while (i < 3 && digitAt(i)) {
                n = n * 10 + rest.charAt(i++) - '0';
            }
            if (i == 0 || (fixed && i != 3)) {
                throw new Bad();
            }
            rest = rest.substring(i);
            return n;
        }

        /** lookup: a name of {@code names} (or its first three letters), ignoring ASCII case. */
        int lookup(String[] names, boolean abbreviated) throws Bad {
            for (int i = 0; i < names.length; i++) {
                String v = abbreviated ? names[i].substring(0, 3) : names[i];
                if (rest.length() >= v.length() && rest.regionMatches(true, 0, v, 0, v.length())
                        && rest.substring(0, v.length()).chars().allMatch(ch -> ch < 0x80)) {
                    rest = rest.substring(v.length());
                    return i;
                }
            }
            throw new Bad();
        }

        String take(int n) {
            String p = rest.substring(0, n);
            rest = rest.substring(n);
            return p;
        }

        /** skip: the layout's literal text, a run of spaces matching a run of spaces. */
        boolean skip(String prefix) {
            while (!prefix.isEmpty()) {
                if (prefix.charAt(0) == ' ') {
                    if (!rest.isEmpty() && rest.charAt(0) != ' ') {
                        return false;
                    }
                    prefix = cutSpace(prefix);
                    rest = cutSpace(rest);
                    continue;
                }
                if (rest.isEmpty() || rest.charAt(0) != prefix.charAt(0)) {
                    return false;
                }
                prefix = prefix.substring(1);
                rest = rest.substring(1);
            }
            return true;
        }

        private static String cutSpace(String s) {
            int i = 0;
            while (i < s.length() && s.charAt(i) == ' ') {
                i++;
            }
            return s.substring(i);
        }
    }

    /** Digits of a fraction, {@code value} starting with its separator, scaled to nanoseconds (parseNanoseconds); -1 when negative. */
    private static int nanosOf(String value, int n) throws Bad {
        if (value.charAt(0) != '.' && value.charAt(0) != ',') {
            throw new Bad();
        }
        int end = Math.min(n, 10);
        String digits = value.substring(1, end);
        String unsigned = digits.startsWith("-") || digits.startsWith("+") ? digits.substring(1) : digits;
        if (unsigned.isEmpty() || !unsigned.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new Bad();
        }
        int ns = Integer.parseInt(digits);
        if (ns < 0) {
            return -1; // "fractional second out of range"
        }
        for (int i = 0; i < 10 - end; i++) {
            ns *= 10;
        }
        return ns;
    }

    /**
     * time.ParseInLocation's parse: {@code value} read with {@code layout}; a time without zone information is in
     * {@code defaultZone}, an offset or abbreviation that {@code local} has at that time gives {@code local}, any other
     * a fixed zone.
     */
    static GoTime parse(String layout, String value, GoZone defaultZone, GoZone local) throws TemplateException {
        Cursor v = new Cursor(value);
        String l = layout;
        String rangeError = "";
        boolean am = false;
        boolean pm = false;
        int year = 0;
        int month = -1;
        int day = -1;
        int yday = -1;
        int hour = 0;
        int min = 0;
        int sec = 0;
        int nsec = 0;
        GoZone z = null;
        int zoneOffset = -1;
        String zoneName = "";
        while (true) {
            Chunk c = next(l);
            String stdText = l.substring(c.prefix().length(), l.length() - c.suffix().length());
            if (!v.skip(c.prefix())) {
                throw error(layout, value, c.prefix(), v.rest, "");
            }
            if (c.std() == null) {
                if (!v.rest.isEmpty()) {
                    throw error(layout, value, "", v.rest, ": extra text: " + quote(v.rest));
                }
                break;
            }
            l = c.suffix();
            String hold = v.rest;
            try {
                switch (c.std()) {
                    case YEAR -> {
                        if (v.rest.length() < 2) {
                            throw new Bad();
                        }
                        year = atoi(v.take(2));
                        year += year >= 69 ? 1900 : 2000;
                    }
                    case LONG_YEAR -> {
                        if (v.rest.length() < 4 || !v.digitAt(0)) {
                            throw new Bad();
                        }
                        year = atoi(v.take(4));
                    }
                    case MONTH -> month = v.lookup(LONG_MONTHS, true) + 1;
                    case LONG_MONTH -> month = v.lookup(LONG_MONTHS, false) + 1;
                    case NUM_MONTH, ZERO_MONTH -> {
                        month = v.num(c.std() == Std.ZERO_MONTH);
                        if (month <= 0 || month > 12) {
                            rangeError = "month";
                        }
                    }
                    case WEEKDAY -> v.lookup(LONG_DAYS, true);
                    case LONG_WEEKDAY -> v.lookup(LONG_DAYS, false);
                    case DAY, UNDER_DAY, ZERO_DAY -> {
                        if (c.std() == Std.UNDER_DAY && v.rest.startsWith(" ")) {
                            v.take(1);
                        }
                        day = v.num(c.std() == Std.ZERO_DAY);
                    }
                    case UNDER_YEARDAY, ZERO_YEARDAY -> {
                        for (int i = 0; i < 2; i++) {
                            if (c.std() == Std.UNDER_YEARDAY && v.rest.startsWith(" ")) {
                                v.take(1);
                            }
                        }
                        yday = v.num3(c.std() == Std.ZERO_YEARDAY);
                    }
                    case HOUR -> {
                        hour = v.num(false);
                        if (hour >= 24) {
                            rangeError = "hour";
                        }
                    }
                    case HOUR12, ZERO_HOUR12 -> {
                        hour = v.num(c.std() == Std.ZERO_HOUR12);
                        if (hour > 12) {
                            rangeError = "hour";
                        }
                    }
                    case MINUTE, ZERO_MINUTE -> {
                        min = v.num(c.std() == Std.ZERO_MINUTE);
                        if (min >= 60) {
                            rangeError = "minute";
                        }
                    }
                    case SECOND, ZERO_SECOND -> {
                        sec = v.num(c.std() == Std.ZERO_SECOND);
                        if (sec >= 60) {
                            rangeError = "second";
                            break;
                        }
                        // a fraction the layout does not show is read all the same
                        if (v.rest.length() >= 2 && (v.rest.charAt(0) == '.' || v.rest.charAt(0) == ',') && v.digitAt(1)) {
                            Std following = next(l).std();
                            if (following != Std.FRAC_0 && following != Std.FRAC_9) {
                                int n = 2;
                                while (v.digitAt(n)) {
                                    n++;
                                }
                                nsec = nanosOf(v.rest, n);
                                rangeError = nsec < 0 ? "fractional second" : rangeError;
                                v.take(n);
                            }
                        }
                    }
                    case PM, PM_LOWER -> {
                        if (v.rest.length() < 2) {
                            throw new Bad();
                        }
                        String p = v.take(2);
                        String up = c.std() == Std.PM ? "PM" : "pm";
                        String down = c.std() == Std.PM ? "AM" : "am";
                        if (p.equals(up)) {
                            pm = true;
                        } else if (p.equals(down)) {
                            am = true;
                        } else {
                            throw new Bad();
                        }
                    }
                    case TZ -> {
                        if (v.rest.startsWith("UTC")) {
                            z = GoZone.UTC;
                            v.take(3);
                            break;
                        }
                        int n = zoneNameLength(v.rest);
                        if (n <= 0) {
                            throw new Bad();
                        }
                        zoneName = v.take(n);
                    }
                    case FRAC_0 -> {
                        int n = 1 + c.digits();
                        if (v.rest.length() < n) {
                            throw new Bad();
                        }
                        nsec = nanosOf(v.rest, n);
                        rangeError = nsec < 0 ? "fractional second" : rangeError;
                        v.take(n);
                    }
                    case FRAC_9 -> {
                        if (v.rest.length() < 2 || (v.rest.charAt(0) != '.' && v.rest.charAt(0) != ',') || !v.digitAt(1)) {
                            break;
                        }
                        int i = 0;
                        while (v.digitAt(i + 1)) {
                            i++;
                        }
                        nsec = nanosOf(v.rest, 1 + i);
                        rangeError = nsec < 0 ? "fractional second" : rangeError;
                        v.take(1 + i);
                    }
                    default -> {
                        if (c.std().iso() && v.rest.startsWith("Z")) {
                            v.take(1);
                            z = GoZone.UTC;
                            break;
                        }
                        // ±hh, ±hhmm, ±hh:mm, ±hhmmss or ±hh:mm:ss, as the element says
                        boolean colon = c.std().colon();
                        int n = 3 + (c.std().short_() ? 0 : colon ? 3 : 2) + (c.std().withSeconds() ? colon ? 3 : 2 : 0);
                        if (v.rest.length() < n || (colon && (v.rest.charAt(3) != ':' || (n == 9 && v.rest.charAt(6) != ':')))) {
                            throw new Bad();
                        }
                        String t = v.take(n);
                        String sign = t.substring(0, 1);
                        String digits = colon ? t.substring(1, 3) + t.substring(4, 6) + (n == 9 ? t.substring(7, 9) : "") : t.substring(1);
                        String hh = digits.substring(0, 2);
                        String mm = digits.length() >= 4 ? digits.substring(2, 4) : "00";
                        String ss = digits.length() >= 6 ? digits.substring(4, 6) : "00";
                        int h = new Cursor(hh).num(true);
                        int m = new Cursor(mm).num(true);
                        int s = new Cursor(ss).num(true);
                        if (h > 24) {
                            rangeError = "time zone offset hour";
                        }
                        if (m > 60) {
                            rangeError = "time zone offset minute";
                        }
                        if (s > 60) {
                            rangeError = "time zone offset second";
                        }
                        zoneOffset = (h * 60 + m) * 60 + s;
                        if (sign.equals("-")) {
                            zoneOffset = -zoneOffset;
                        } else if (!sign.equals("+")) {
                            throw new Bad();
                        }
                    }
                }
            } catch (Bad bad) {
                if (!rangeError.isEmpty()) {
                    throw error(layout, value, stdText, v.rest, ": " + rangeError + " out of range");
                }
                throw error(layout, value, stdText, hold, "");
            }
            if (!rangeError.isEmpty()) {
                throw error(layout, value, stdText, v.rest, ": " + rangeError + " out of range");
            }
        }
        if (pm && hour < 12) {
            hour += 12;
        } else if (am && hour == 12) {
            hour = 0;
        }
        if (yday >= 0) {
            int d = 0;
            int m = 0;
            boolean leap = java.time.Year.isLeap(year);
            if (leap) {
                if (yday == 31 + 29) {
                    m = 2;
                    d = 29;
                } else if (yday > 31 + 29) {
                    yday--;
                }
            }
            if (yday < 1 || yday > 365) {
                throw error(layout, value, "", v.rest, ": day-of-year out of range");
            }
            if (m == 0) {
                LocalDate date = LocalDate.ofYearDay(2001, yday); // a common year, as Go's daysBefore table
                m = date.getMonthValue();
                d = date.getDayOfMonth();
            }
            if (month >= 0 && month != m) {
                throw error(layout, value, "", v.rest, ": day-of-year does not match month");
            }
            month = m;
            if (day >= 0 && day != d) {
                throw error(layout, value, "", v.rest, ": day-of-year does not match day");
            }
            day = d;
        } else {
            month = month < 0 ? 1 : month;
            day = day < 0 ? 1 : day;
        }
        if (day < 1 || day > java.time.YearMonth.of(year, month).lengthOfMonth()) {
            throw error(layout, value, "", v.rest, ": day out of range");
        }
        long utc = LocalDateTime.of(year, month, day, hour, min, sec).toEpochSecond(ZoneOffset.UTC);
        if (z != null) {
            return date(utc, nsec, z);
        }
        if (zoneOffset != -1) {
            long at = utc - zoneOffset;
            Instant instant = Instant.ofEpochSecond(at);
            if (local.offset(instant) == zoneOffset && (zoneName.isEmpty() || local.abbreviation(instant).equals(zoneName))) {
                return new GoTime(at, nsec, local, null);
            }
            return new GoTime(at, nsec, GoZone.fixed(zoneName, zoneOffset), null);
        }
        if (!zoneName.isEmpty()) {
            Instant instant = Instant.ofEpochSecond(utc);
            if (local.rules() != null && local.abbreviation(instant).equals(zoneName)) { // a named Local's own zone
                return new GoTime(utc - local.offset(instant), nsec, local, null);
            }
            int offset = zoneName.length() > 3 && zoneName.startsWith("GMT") ? Integer.parseInt(zoneName.substring(3)) * 3600 : 0;
            return new GoTime(utc, nsec, GoZone.fixed(zoneName, offset), null);
        }
        return date(utc, nsec, defaultZone);
    }

    /** time.Date for a wall clock read as UTC seconds, in {@code z}: the offset {@code z} has at that wall time. */
    private static GoTime date(long wallAsUtc, int nsec, GoZone z) {
        return new GoTime(z.instantOf(wallAsUtc), nsec, z, null);
    }

    private static int atoi(String s) throws Bad {
        if (s.isEmpty() || !s.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            throw new Bad();
        }
        return Integer.parseInt(s);
    }

    /** parseTimeZone: the length of the zone abbreviation {@code value} starts with, or 0. */
    static int zoneNameLength(String value) {
        if (value.length() < 3) {
            return 0;
        }
        if (value.startsWith("ChST") || value.startsWith("MeST")) {
            return 4;
        }
        if (value.startsWith("GMT")) {
            return 3 + signedOffsetLength(value.substring(3));
        }
        if (value.charAt(0) == '+' || value.charAt(0) == '-') {
            return signedOffsetLength(value);
        }
        int upper = 0;
        while (upper < 6 && upper < value.length() && value.charAt(upper) >= 'A' && value.charAt(upper) <= 'Z') {
            upper++;
        }
        return switch (upper) {
            case 3 -> 3;
            case 4 -> value.charAt(3) == 'T' || value.startsWith("WITA") ? 4 : 0;
            case 5 -> value.charAt(4) == 'T' ? 5 : 0;
            default -> 0;
        };
    }

    /** parseSignedOffset: a sign and a number of hours up to 23, or 0. */
    private static int signedOffsetLength(String value) {
        if (value.isEmpty() || (value.charAt(0) != '+' && value.charAt(0) != '-')) {
            return 0;
        }
        int i = 1;
        long x = 0;
        while (i < value.length() && isDigit(value.charAt(i))) {
            x = Math.min(x * 10 + value.charAt(i) - '0', 1000);
            i++;
        }
        return i == 1 || x > 23 ? 0 : i;
    }
}
