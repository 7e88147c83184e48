package io.nodelabeller.template;

import java.util.List;
import java.util.Map;

/**
 * Sprig v3.3.0's date functions (date.go, and {@code now}: Go's time.Now), with Sprig's results: a date argument that
 * is neither a time nor an integer means now ({@code date "2006" "2020-01-02"} is this year, as in Sprig);
 * {@code duration} reads an int64 or a text of digits as seconds and anything else, a literal {@code 90} included, as
 * 0; {@code durationRound} reads an int64 as nanoseconds, a text as a Go duration, a time as the time since;
 * {@code toDate} gives Go's zero time for a text its layout cannot read, {@code mustToDate} the error; an unknown zone
 * is UTC. {@code Local} is UTC ({@link GoZone}).
 */
final class SprigDates {

    /** A function that reads the clock. */
    @FunctionalInterface
    interface Timed {
        Object call(List<Object> args, TemplateClock clock) throws TemplateException;
    }

    private SprigDates() {
    }

    static void register(Map<String, Timed> f) {
        f.put("now", (a, clock) -> {
            Functions.arity("now", a, 0);
            return clock.now();
        });
        f.put("date", (a, clock) -> inZone(SprigText.string("date", Functions.arity("date", a, 2), 0), a.get(1), "Local", clock));
        f.put("htmlDate", (a, clock) -> inZone("2006-01-02", Functions.arity("htmlDate", a, 1).get(0), "Local", clock));
        f.put("htmlDateInZone", (a, clock) -> inZone("2006-01-02", Functions.arity("htmlDateInZone", a, 2).get(0),
                SprigText.string("htmlDateInZone", a, 1), clock));
        for (String name : List.of("dateInZone", "date_in_zone")) {
            f.put(name, (a, clock) -> inZone(SprigText.string(name, Functions.arity(name, a, 3), 0), a.get(1),
                    SprigText.string(name, a, 2), clock));
        }
        for (String name : List.of("dateModify", "date_modify")) {
            f.put(name, (a, clock) -> {
                GoTime t = time(name, Functions.arity(name, a, 2), 1);
                String modification = SprigText.string(name, a, 0);
                try {
                    return t.add(GoDuration.parse(modification));
                } catch (TemplateException unreadable) {
                    return t;
                }
            });
        }
        for (String name : List.of("mustDateModify", "must_date_modify")) {
            f.put(name, (a, clock) -> {
                GoTime t = time(name, Functions.arity(name, a, 2), 1);
                return t.add(GoDuration.parse(SprigText.string(name, a, 0)));
            });
        }
        f.put("ago", (a, clock) -> {
            GoTime t = timeOrNow(Functions.arity("ago", a, 1).get(0), clock);
            return GoDuration.format(GoDuration.round(clock.now().sub(t), GoDuration.SECOND));
        });
        f.put("duration", (a, clock) -> {
            Object sec = Functions.arity("duration", a, 1).get(0);
            long n = sec instanceof String s ? orZero(() -> Long.parseLong(s)) : sec instanceof Int64 i ? i.value() : 0;
            return GoDuration.format(n * GoDuration.SECOND);
        });
        f.put("durationRound", (a, clock) -> {
            Object v = Functions.arity("durationRound", a, 1).get(0);
            return roughly(v instanceof String s ? orZero(() -> GoDuration.parse(s)) : v instanceof Int64 i ? i.value()
                    : v instanceof GoTime t ? clock.now().sub(t) : 0);
        });
        f.put("toDate", (a, clock) -> {
            try {
                return toDate("toDate", a);
            } catch (TemplateException unreadable) {
                return GoTime.ZERO;
            }
        });
        f.put("mustToDate", (a, clock) -> toDate("mustToDate", a));
        f.put("unixEpoch", (a, clock) -> Long.toString(time("unixEpoch", Functions.arity("unixEpoch", a, 1), 0).seconds()));
    }

    private interface Reading {
        long read() throws TemplateException;
    }

    /** What Sprig does with a number it cannot read: {@code n, _ := strconv.ParseInt(…)} and the like give 0. */
    private static long orZero(Reading reading) {
        try {
            return reading.read();
        } catch (TemplateException | NumberFormatException unreadable) {
            return 0;
        }
    }

    /** Sprig's dateInZone. */
    private static String inZone(String layout, Object date, String zone, TemplateClock clock) {
        GoTime t = timeOrNow(date, clock);
        GoZone z;
        try {
            z = GoZone.load(zone);
        } catch (TemplateException unknown) {
            z = GoZone.UTC;
        }
        return t.in(z).format(layout);
    }

    /** Sprig's date switch: a time, Go's int or int64 as time.Unix(sec, 0) in Local, anything else now. */
    private static GoTime timeOrNow(Object date, TemplateClock clock) {
        if (date instanceof GoTime t) {
            return t;
        }
        if (date instanceof Long || date instanceof Int64) {
            return new GoTime(Int64.of(date), 0, GoZone.LOCAL, null);
        }
        return clock.now();
    }

    private static GoTime toDate(String name, List<Object> a) throws TemplateException {
        Functions.arity(name, a, 2);
        return GoTimeParse.parse(SprigText.string(name, a, 0), SprigText.string(name, a, 1), GoZone.LOCAL, GoZone.LOCAL);
    }

    /** Argument {@code i} as Go's {@code time.Time} parameter. */
    private static GoTime time(String fn, List<Object> a, int i) throws TemplateException {
        if (a.get(i) instanceof GoTime t) {
            return t;
        }
        throw new TemplateException("wrong type for value; expected time.Time; got " + GoFormat.typeName(a.get(i))
                + " (argument " + (i + 1) + " of " + fn + ")");
    }

    /** Sprig's durationRound: the largest whole unit the duration exceeds (years of 365 days, months of 30). */
    private static String roughly(long d) {
        long u = d < 0 ? -d : d;
        long second = GoDuration.SECOND;
        long[] units = {365 * 24 * 3600 * second, 30 * 24 * 3600 * second, 24 * 3600 * second, 3600 * second,
            60 * second, second};
        String[] names = {"y", "mo", "d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (Long.compareUnsigned(u, units[i]) > 0) {
                return Long.toUnsignedString(Long.divideUnsigned(u, units[i])) + names[i];
            }
        }
        return "0s";
    }
}
