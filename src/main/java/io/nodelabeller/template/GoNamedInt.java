package io.nodelabeller.template;

/**
 * A value of one of Go's named integer types that print as a name: {@code time.Month} ({@code November}) and
 * {@code time.Weekday} ({@code Saturday}), what a time's {@code .Month} and {@code .Weekday} give. It prints as its
 * name ({@code %v}, {@code print}, {@code toString}), and is an integer everywhere else, as in Go: {@code eq (now).Month
 * 11}, {@code printf "%d"}, {@code add (now).Month 1}; {@code typeOf} names its type.
 */
record GoNamedInt(String type, long value, String name) {

    @Override
    public String toString() {
        return name;
    }
}
