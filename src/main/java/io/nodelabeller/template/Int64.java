package io.nodelabeller.template;

/**
 * A Go {@code int64}: what Sprig's integer arithmetic returns ({@code add add1 sub mul div mod max min biggest int64
 * toDecimal}, which spf13/cast and Sprig's numeric.go type as int64), apart from Go's {@code int} (a literal,
 * {@code len}, {@code atoi}, {@code int}, {@code until}), which is a plain {@link Long}. The two print alike and
 * {@code eq}/{@code lt} compare them by value, as text/template does; {@code typeOf} and {@code %T} name them, a Go
 * {@code int} parameter ({@code substr}, {@code until}, …) refuses an int64 as text/template does, Sprig's
 * {@code duration} reads an int64 as seconds and an int as nothing, and {@code has}, {@code uniq}, {@code without}
 * and {@code deepEqual} (reflect.DeepEqual) hold {@code 1} and {@code (add 0 1)} different.
 */
record Int64(long value) {

    /** The integer {@code v} holds, of any integer type ({@link GoNamedInt} too), or null when it is not an integer. */
    static Long of(Object v) {
        return v instanceof Long l ? l : v instanceof Int64 i ? i.value : v instanceof GoNamedInt n ? n.value() : null;
    }

    /** {@code i} as an integer of {@code v}'s type ({@code v} an integer): what ranging over {@code v} gives. */
    static Object sameType(Object v, long i) {
        return v instanceof Int64 ? new Int64(i) : v instanceof GoNamedInt n ? n.of(i) : (Object) i;
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
