package io.nodelabeller.template;

import java.util.List;

/**
 * A value of one of Go's named integer types that print as a name: {@code time.Month} ({@code November}),
 * {@code time.Weekday} ({@code Saturday}) and {@code time.Duration} ({@code 1h30m0s}), what a time's {@code .Month},
 * {@code .Weekday} and {@code .Sub} give. It prints as its name ({@code %v}, {@code print}, {@code toString}), and is
 * an integer everywhere else, as in Go: {@code eq (now).Month 11}, {@code printf "%d"}, {@code add (now).Month 1};
 * {@code typeOf} names its type. A Duration has Go's methods ({@link #call}).
 */
record GoNamedInt(String type, long value, String name) implements Receiver {

    static final String DURATION = "time.Duration";

    static final String[] MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August",
        "September", "October", "November", "December"};
    static final String[] DAYS = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

    /** time.Month(m): its String is the month's English name, {@code %!Month(13)} out of range. */
    static GoNamedInt month(long m) {
        return new GoNamedInt("time.Month", m, m >= 1 && m <= 12 ? MONTHS[(int) m - 1] : "%!Month(" + m + ")");
    }

    /** time.Weekday(d), Sunday being 0. */
    static GoNamedInt weekday(long d) {
        return new GoNamedInt("time.Weekday", d, d >= 0 && d <= 6 ? DAYS[(int) d] : "%!Weekday(" + d + ")");
    }

    /** time.Duration(d): nanoseconds, printed as Duration.String. */
    static GoNamedInt duration(long d) {
        return new GoNamedInt(DURATION, d, GoDuration.format(d));
    }

    /** The value {@code v} of the same type (what ranging over this value gives). */
    GoNamedInt of(long v) {
        return switch (type) {
            case "time.Month" -> month(v);
            case DURATION -> duration(v);
            default -> weekday(v);
        };
    }

    /**
     * Argument {@code i} as a Go {@code time.Duration} parameter: a Duration, or an integer constant (text/template
     * converts a literal; an {@code int} value is taken too, an {@code int64} refused as Go refuses it).
     */
    static long durationArg(String fn, List<Object> a, int i) throws TemplateException {
        Object v = a.get(i);
        if (v instanceof GoNamedInt n && n.type.equals(DURATION)) {
            return n.value;
        }
        if (v instanceof Long l) {
            return l;
        }
        throw new TemplateException("wrong type for value; expected time.Duration; got " + GoFormat.typeName(v)
                + " (argument " + (i + 1) + " of " + fn + ")");
    }

    /** A method of this value a template calls ({@code .String}, a Duration's {@code .Hours} …), or null. */
    @Override
    public Object call(String method, List<Object> args) throws TemplateException {
        if (!has(method)) {
            return null;
        }
        Functions.arity(method, args, method.equals("Round") || method.equals("Truncate") ? 1 : 0);
        return switch (method) {
            case "String" -> name;
            case "Hours" -> fraction(3600 * GoDuration.SECOND);
            case "Minutes" -> fraction(60 * GoDuration.SECOND);
            case "Seconds" -> fraction(GoDuration.SECOND);
            case "Milliseconds" -> new Int64(value / 1_000_000);
            case "Microseconds" -> new Int64(value / 1000);
            case "Nanoseconds" -> new Int64(value);
            case "Abs" -> duration(value >= 0 ? value : value == Long.MIN_VALUE ? Long.MAX_VALUE : -value);
            case "Round" -> duration(GoDuration.round(value, durationArg(method, args, 0)));
            default -> { // Truncate
                long m = durationArg(method, args, 0);
                yield duration(m <= 0 ? value : value - value % m);
            }
        };
    }

    /** Duration.Hours/Minutes/Seconds: whole units and the remainder as float64, as Go splits them. */
    private double fraction(long unit) {
        return (double) (value / unit) + (double) (value % unit) / unit;
    }

    /** Whether a value of this type has the method {@code name} here. */
    @Override
    public boolean has(String method) {
        return method.equals("String") || (type.equals(DURATION) && java.util.Set.of("Hours", "Minutes", "Seconds",
                "Milliseconds", "Microseconds", "Nanoseconds", "Abs", "Round", "Truncate").contains(method));
    }

    @Override
    public String toString() {
        return name;
    }
}
