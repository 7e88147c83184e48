package io.nodelabeller.template;

/**
 * A value of one of Go's named integer types that print as a name: {@code time.Month} ({@code November}) and
 * {@code time.Weekday} ({@code Saturday}), what a time's {@code .Month} and {@code .Weekday} give. It prints as its
 * name ({@code %v}, {@code print}, {@code toString}), and is an integer everywhere else, as in Go: {@code eq (now).Month
 * 11}, {@code printf "%d"}, {@code add (now).Month 1}; {@code typeOf} names its type.
 */
record GoNamedInt(String type, long value, String name) {

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

    /** The value {@code v} of the same type (what ranging over this value gives). */
    GoNamedInt of(long v) {
        return type.equals("time.Month") ? month(v) : weekday(v);
    }

    @Override
    public String toString() {
        return name;
    }
}
