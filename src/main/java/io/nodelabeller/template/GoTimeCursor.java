package io.nodelabeller.template;

/**
 * A cursor over the value {@link GoTimeParse#parse} reads, with time/format.go's readers of numbers, names, fractions
 * and zone abbreviations; a value that does not match throws {@link Bad}.
 */
final class GoTimeCursor {

    String rest;

    GoTimeCursor(String rest) {
        this.rest = rest;
    }

    boolean digitAt(int i) {
        return i < rest.length() && GoLayout.isDigit(rest.charAt(i));
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

    /** The value does not match the layout element being read (time/format.go's errBad). */
    static final class Bad extends Exception {
        Bad() {
            super(null, null, false, false);
        }
    }

    /** Digits of a fraction, {@code value} starting with its separator, scaled to nanoseconds (parseNanoseconds); -1 when negative. */
    static int nanosOf(String value, int n) throws Bad {
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

    static int atoi(String s) throws Bad {
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
        while (i < value.length() && GoLayout.isDigit(value.charAt(i))) {
            x = Math.min(x * 10 + value.charAt(i) - '0', 1000);
            i++;
        }
        return i == 1 || x > 23 ? 0 : i;
    }
}
