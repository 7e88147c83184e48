package io.nodelabeller.template;

/**
 * The elements of a Go time layout as time/format.go's nextStdChunk reads them: {@link #next} splits a layout into the
 * text before its first element, the element ({@link Std}, with the digits and separator of a fraction) and the rest.
 * {@link GoTime#format} and {@link GoTimeParse#parse} walk a layout with it.
 */
final class GoLayout {

    private GoLayout() {
    }

    /** Layout elements (time/format.go's std values). */
    enum Std {
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
    record Chunk(String prefix, Std std, int digits, char separator, String suffix) {
    }

    private static Chunk chunk(String l, int i, int length, Std std) {
        return new Chunk(l.substring(0, i), std, 0, '.', l.substring(i + length));
    }

    private static boolean at(String l, int i, String s) {
        return l.startsWith(s, i);
    }

    /** time/format.go's nextStdChunk: the first layout element in {@code l}. */
    static Chunk next(String l) {
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

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
