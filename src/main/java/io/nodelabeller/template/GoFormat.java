package io.nodelabeller.template;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Go's fmt for the values a template sees (String, Long, {@link Int64}, Double, Boolean, Map, List, null, and the
 * values with a String method: {@link SemVer}, {@link GoTime}, {@link GoNamedInt}): {@code %v} printing (maps as
 * {@code map[k:v]} in key order, lists as {@code [a b]}, floats in Go's shortest form), {@code Sprint},
 * {@code Sprintln} and {@code Sprintf} with Go's verbs, flags and its {@code %!verb(type=value)} error forms.
 */
final class GoFormat {

    private GoFormat() {
    }

    /** {@code %v}. */
    static String value(Object v) {
        if (v == null) {
            return "<nil>";
        }
        if (v instanceof Double d) {
            return shortest(d);
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("map[");
            boolean first = true;
            for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
                sb.append(first ? "" : " ").append(value(e.getKey())).append(':').append(value(e.getValue()));
                first = false;
            }
            return sb.append(']').toString();
        }
        if (v instanceof List<?> l) {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < l.size(); i++) {
                sb.append(i == 0 ? "" : " ").append(value(l.get(i)));
            }
            return sb.append(']').toString();
        }
        return v.toString();
    }

    /** Go's type name of a value, as {@code %T} and error messages show it. */
    static String typeName(Object v) {
        if (v == null) {
            return "<nil>";
        }
        if (v instanceof String) {
            return "string";
        }
        if (v instanceof Long) {
            return "int";
        }
        if (v instanceof Int64) {
            return "int64";
        }
        if (v instanceof GoNamedInt n) {
            return n.type();
        }
        if (v instanceof Double) {
            return "float64";
        }
        if (v instanceof Boolean) {
            return "bool";
        }
        if (v instanceof Map<?, ?> m) {
            return "map[string]" + (m.isEmpty() ? "string" : typeName(m.values().iterator().next()));
        }
        if (v instanceof List<?> l) {
            return "[]" + (l.isEmpty() ? "interface {}" : typeName(l.get(0)));
        }
        if (v instanceof SemVer) {
            return "*semver.Version";
        }
        if (v instanceof GoTime) {
            return "time.Time";
        }
        return v.getClass().getSimpleName();
    }

    /** fmt.Sprint: a space between operands when neither is a string. */
    static String sprint(List<Object> args) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            if (i > 0 && !(args.get(i) instanceof String) && !(args.get(i - 1) instanceof String)) {
                sb.append(' ');
            }
            sb.append(value(args.get(i)));
        }
        return sb.toString();
    }

    /** fmt.Sprintln: spaces between all operands and a newline. */
    static String sprintln(List<Object> args) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            sb.append(i == 0 ? "" : " ").append(value(args.get(i)));
        }
        return sb.append('\n').toString();
    }

    /** fmt.Sprintf. */
    static String sprintf(String format, List<Object> args) {
        StringBuilder out = new StringBuilder();
        int arg = 0;
        int i = 0;
        while (i < format.length()) {
            char c = format.charAt(i++);
            if (c != '%') {
                out.append(c);
                continue;
            }
            Spec s = new Spec();
            while (i < format.length() && "-+# 0".indexOf(format.charAt(i)) >= 0) {
                char f = format.charAt(i++);
                s.minus |= f == '-';
                s.plus |= f == '+';
                s.sharp |= f == '#';
                s.space |= f == ' ';
                s.zero |= f == '0';
            }
            int[] n = number(format, i);
            s.width = n[0];
            i = n[1];
            if (i < format.length() && format.charAt(i) == '.') {
                n = number(format, i + 1);
                s.precision = Math.max(0, n[0]);
                i = n[1];
            }
            if (i >= format.length()) {
                out.append("%!(NOVERB)");
                break;
            }
            char verb = format.charAt(i++);
            if (verb == '%') {
                out.append('%');
                continue;
            }
            if (arg >= args.size()) {
                out.append("%!").append(verb).append("(MISSING)");
                continue;
            }
            out.append(s.pad(format(verb, s, args.get(arg++)), verb));
        }
        if (arg < args.size()) {
            out.append("%!(EXTRA ");
            for (int a = arg; a < args.size(); a++) {
                out.append(a == arg ? "" : ", ").append(typeName(args.get(a))).append('=').append(value(args.get(a)));
            }
            out.append(')');
        }
        return out.toString();
    }

    /**
     * fmt's parsenum: the digits at {@code from} as {value, end}, value -1 when there are none; a number that grows
     * past 10^6 before its last digit is "too large" and, as in Go, takes the rest of the format with it (no verb).
     */
    private static int[] number(String format, int from) {
        int num = 0;
        int i = from;
        while (i < format.length() && Character.isDigit(format.charAt(i))) {
            if (num > 1_000_000) {
                return new int[] {-1, format.length()};
            }
            num = num * 10 + format.charAt(i++) - '0';
        }
        return new int[] {i == from ? -1 : num, i};
    }

    private static final class Spec {
        boolean minus;
        boolean plus;
        boolean sharp;
        boolean space;
        boolean zero;
        int width = -1;
        int precision = -1;

        String pad(String s, char verb) {
            int n = s.codePointCount(0, s.length());
            if (width <= n) {
                return s;
            }
            String fill = " ".repeat(width - n);
            if (minus) {
                return s + fill;
            }
            if (zero && "dboxXeEfFgG".indexOf(verb) >= 0) {
                int sign = !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+' || s.charAt(0) == ' ') ? 1 : 0;
                return s.substring(0, sign) + "0".repeat(width - n) + s.substring(sign);
            }
            return fill + s;
        }

        String sign(String digits, boolean negative) {
            return (negative ? "-" : plus ? "+" : space ? " " : "") + digits;
        }
    }

    private static String format(char verb, Spec s, Object v) {
        if (verb == 'T') {
            return typeName(v);
        }
        if (v instanceof GoNamedInt named && (verb == 'v' || verb == 's' || verb == 'q')) {
            return format(verb, s, named.name()); // a Stringer
        }
        Long n = Int64.of(v);
        if (n != null) {
            long a = Math.abs(n);
            String digits = switch (verb) {
                case 'd', 'v' -> Long.toString(a);
                case 'b' -> Long.toBinaryString(a);
                case 'o' -> (s.sharp ? "0" : "") + Long.toOctalString(a);
                case 'x' -> (s.sharp ? "0x" : "") + Long.toHexString(a);
                case 'X' -> (s.sharp ? "0X" : "") + Long.toHexString(a).toUpperCase();
                case 'c' -> new String(Character.toChars((int) (long) n));
                case 'q' -> "'" + escape(new String(Character.toChars((int) (long) n)), '\'') + "'";
                default -> null;
            };
            if (digits == null) {
                return bad(verb, v);
            }
            return verb == 'c' || verb == 'q' ? digits : s.sign(digits, n < 0);
        }
        if (v instanceof Double d) {
            boolean negative = d < 0 || (d == 0 && 1 / d < 0);
            double a = Math.abs(d);
            String digits = switch (verb) {
                case 'v', 'g', 'G' -> s.precision < 0 ? shortest(a) : general(a, s.precision);
                case 'e', 'E' -> exponent(new BigDecimal(a).round(new MathContext(
                        (s.precision < 0 ? 6 : s.precision) + 1, RoundingMode.HALF_EVEN)), s.precision < 0 ? 6 : s.precision);
                case 'f', 'F' -> new BigDecimal(a).setScale(s.precision < 0 ? 6 : s.precision, RoundingMode.HALF_EVEN)
                        .toPlainString();
                default -> null;
            };
            if (digits == null) {
                return bad(verb, v);
            }
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                digits = Double.isNaN(d) ? "NaN" : "Inf";
            }
            return s.sign(Character.isUpperCase(verb) ? digits.toUpperCase() : digits, negative);
        }
        if (v instanceof String str) {
            String r = switch (verb) {
                case 's', 'v' -> s.precision >= 0 && s.precision < str.codePointCount(0, str.length())
                        ? str.substring(0, str.offsetByCodePoints(0, s.precision)) : str;
                case 'q' -> quote(str);
                case 'x', 'X' -> hexBytes(str, verb == 'X');
                default -> null;
            };
            return r == null ? bad(verb, v) : r;
        }
        if (v instanceof Boolean b) {
            return verb == 't' || verb == 'v' ? b.toString() : bad(verb, v);
        }
        if (v == null) {
            return verb == 'v' ? "<nil>" : "%!" + verb + "(<nil>)";
        }
        return verb == 'v' || verb == 's' ? value(v) : bad(verb, v);
    }

    private static String bad(char verb, Object v) {
        return "%!" + verb + "(" + typeName(v) + "=" + value(v) + ")";
    }

    /** Go's %v of a float: the shortest digits that read back as {@code d}; exponent form below 1e-4 and from 1e6. */
    private static String shortest(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal b = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        return (d < 0 ? "-" : "") + general(b, 6, b.precision());
    }

    /** %.Ng */
    private static String general(double a, int precision) {
        if (a == 0) {
            return "0";
        }
        int p = precision == 0 ? 1 : precision;
        BigDecimal b = new BigDecimal(a).round(new MathContext(p, RoundingMode.HALF_EVEN)).stripTrailingZeros();
        return general(b, p, b.precision());
    }

    /** Plain or exponent form of {@code b} (positive, no trailing zeros), switching at {@code eprec} as Go does. */
    private static String general(BigDecimal b, int eprec, int digits) {
        int exp = b.precision() - b.scale() - 1;
        if (exp < -4 || exp >= eprec) {
            return exponent(b, digits - 1);
        }
        return b.toPlainString();
    }

    /** d.ddde±XX with {@code decimals} digits after the point. */
    private static String exponent(BigDecimal b, int decimals) {
        int exp = b.signum() == 0 ? 0 : b.precision() - b.scale() - 1;
        BigDecimal mantissa = b.movePointLeft(exp).setScale(decimals, RoundingMode.HALF_EVEN);
        return mantissa.toPlainString() + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
    }

    private static String hexBytes(String s, boolean upper) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            sb.append(String.format(upper ? "%02X" : "%02x", b & 0xff));
        }
        return sb.toString();
    }

    /** strconv.Quote: {@code s} between double quotes, escaped. */
    static String quote(String s) {
        return '"' + escape(s, '"') + '"';
    }

    /** strconv.Quote's escaping (quote is the delimiter to escape). */
    static String escape(String s, char quote) {
        StringBuilder sb = new StringBuilder();
        s.codePoints().forEach(cp -> {
            switch (cp) {
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 11 -> sb.append("\\v");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (cp == quote) {
                        sb.append('\\').appendCodePoint(cp);
                    } else if (cp < 0x20 || cp == 0x7f) {
                        sb.append(String.format("\\x%02x", cp));
                    } else if (!isPrint(cp)) {
                        sb.append(cp > 0xffff ? String.format("\\U%08x", cp) : String.format("\\u%04x", cp));
                    } else {
                        sb.appendCodePoint(cp);
                    }
                }
            }
        });
        return sb.toString();
    }

    /** Go's unicode.IsPrint (strconv's too): letters, marks, numbers, punctuation, symbols and the ASCII space. */
    static boolean isPrint(int cp) {
        if (cp == ' ') {
            return true;
        }
        return switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER, Character.MODIFIER_LETTER,
                 Character.OTHER_LETTER, Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK,
                 Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER, Character.CONNECTOR_PUNCTUATION,
                 Character.DASH_PUNCTUATION, Character.START_PUNCTUATION, Character.END_PUNCTUATION,
                 Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION, Character.OTHER_PUNCTUATION,
                 Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL, Character.MODIFIER_SYMBOL, Character.OTHER_SYMBOL -> true;
            default -> false;
        };
    }
}
