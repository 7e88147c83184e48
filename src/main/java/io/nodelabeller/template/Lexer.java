package io.nodelabeller.template;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a template into text and action tokens with the rules of Go's text/template lexer: {@code {{- } and
 * {@code  -}}} trim the white space (space, tab, CR, LF) next to them, {@code {{/* ... *&#47;}} is a comment,
 * strings are Go string literals, numbers are Go number literals.
 */
final class Lexer {

    enum Type { TEXT, LEFT, RIGHT, FIELD, DOT, VARIABLE, IDENT, LITERAL, PIPE, LPAREN, RPAREN, DECLARE, ASSIGN, COMMA, EOF }

    /** One token; {@code value} is the literal's value, {@code spaceBefore} whether white space precedes it. */
    record Token(Type type, String text, Object value, int offset, boolean spaceBefore) {
        @Override
        public String toString() {
            return type == Type.EOF ? "EOF" : type == Type.RIGHT ? "}}" : type == Type.LEFT ? "{{" : text;
        }
    }

    private final String src;
    private final List<Token> out = new ArrayList<>();
    private int pos;

    private Lexer(String src) {
        this.src = src;
    }

    static List<Token> lex(String src) throws TemplateException {
        Lexer l = new Lexer(src);
        l.run();
        return l.out;
    }

    private void run() throws TemplateException {
        boolean trimLeading = false;
        while (pos < src.length()) {
            int open = src.indexOf("{{", pos);
            int textEnd = open < 0 ? src.length() : open;
            int afterOpen = open + 2;
            boolean trimBefore = open >= 0 && src.startsWith("-", afterOpen) && afterOpen + 1 < src.length()
                    && isSpace(src.charAt(afterOpen + 1));
            String text = src.substring(pos, textEnd);
            if (trimLeading) {
                text = text.substring(countSpace(text, 0));
            }
            if (trimBefore) {
                int e = text.length();
                while (e > 0 && isSpace(text.charAt(e - 1))) {
                    e--;
                }
                text = text.substring(0, e);
            }
            if (!text.isEmpty()) {
                out.add(new Token(Type.TEXT, text, null, pos, false));
            }
            if (open < 0) {
                break;
            }
            pos = trimBefore ? afterOpen + 2 : afterOpen;
            if (src.startsWith("/*", pos)) {
                trimLeading = comment(open);
            } else {
                out.add(new Token(Type.LEFT, "{{", null, open, false));
                trimLeading = action();
            }
        }
        out.add(new Token(Type.EOF, "", null, src.length(), false));
    }

    /** Skips a comment; returns whether it ends with a trim marker. */
    private boolean comment(int open) throws TemplateException {
        int end = src.indexOf("*/", pos + 2);
        if (end < 0) {
            throw error(open, "unclosed comment");
        }
        pos = end + 2;
        if (src.startsWith(" -}}", pos) || src.startsWith("\t-}}", pos) || src.startsWith("\n-}}", pos)
                || src.startsWith("\r-}}", pos)) {
            pos += 4;
            return true;
        }
        if (!src.startsWith("}}", pos)) {
            throw error(open, "comment ends before closing delimiter");
        }
        pos += 2;
        return false;
    }

    /** Lexes the inside of an action up to and including its closing delimiter; returns whether it trims. */
    private boolean action() throws TemplateException {
        boolean space = false;
        while (true) {
            if (pos >= src.length()) {
                throw error(pos, "unclosed action");
            }
            char c = src.charAt(pos);
            if (isSpace(c)) {
                int n = countSpace(src, pos);
                if (src.startsWith("-}}", pos + n)) {
                    out.add(new Token(Type.RIGHT, "}}", null, pos, true));
                    pos += n + 3;
                    return true;
                }
                pos += n;
                space = true;
                continue;
            }
            int start = pos;
            if (src.startsWith("}}", pos)) {
                out.add(new Token(Type.RIGHT, "}}", null, pos, space));
                pos += 2;
                return false;
            }
            switch (c) {
                case '|' -> simple(Type.PIPE, 1, space);
                case '(' -> simple(Type.LPAREN, 1, space);
                case ')' -> simple(Type.RPAREN, 1, space);
                case ',' -> simple(Type.COMMA, 1, space);
                case '=' -> simple(Type.ASSIGN, 1, space);
                case ':' -> {
                    if (!src.startsWith(":=", pos)) {
                        throw error(pos, "expected :=");
                    }
                    simple(Type.DECLARE, 2, space);
                }
                case '"' -> out.add(new Token(Type.LITERAL, quoted('"', "quoted string"), stringValue(start), start,
                        space));
                case '`' -> {
                    int end = src.indexOf('`', pos + 1);
                    if (end < 0) {
                        throw error(start, "unterminated raw quoted string");
                    }
                    pos = end + 1;
                    out.add(new Token(Type.LITERAL, src.substring(start, pos), src.substring(start + 1, end), start, space));
                }
                case '\'' -> out.add(new Token(Type.LITERAL, quoted('\'', "character constant"), charValue(start), start,
                        space));
                case '$' -> {
                    pos++;
                    word();
                    out.add(new Token(Type.VARIABLE, src.substring(start, pos), null, start, space));
                }
                case '.' -> {
                    if (pos + 1 < src.length() && Character.isDigit(src.charAt(pos + 1))) {
                        number(space);
                    } else {
                        pos++;
                        if (pos < src.length() && isWordStart(src.charAt(pos))) {
                            word();
                            out.add(new Token(Type.FIELD, src.substring(start + 1, pos), null, start, space));
                        } else {
                            out.add(new Token(Type.DOT, ".", null, start, space));
                        }
                    }
                }
                default -> {
                    if (Character.isDigit(c) || ((c == '-' || c == '+') && pos + 1 < src.length()
                            && (Character.isDigit(src.charAt(pos + 1)) || src.charAt(pos + 1) == '.'))) {
                        number(space);
                    } else if (isWordStart(c)) {
                        word();
                        String w = src.substring(start, pos);
                        Object v = w.equals("true") ? Boolean.TRUE : w.equals("false") ? Boolean.FALSE : null;
                        out.add(new Token(v == null ? Type.IDENT : Type.LITERAL, w, v, start, space));
                    } else {
                        throw error(pos, "unexpected '" + c + "' in action");
                    }
                }
            }
            space = false;
        }
    }

    private void simple(Type t, int len, boolean space) {
        out.add(new Token(t, src.substring(pos, pos + len), null, pos, space));
        pos += len;
    }

    private void word() {
        while (pos < src.length() && (isWordStart(src.charAt(pos)) || Character.isDigit(src.charAt(pos)))) {
            pos++;
        }
    }

    private void number(boolean space) throws TemplateException {
        int start = pos;
        if (src.charAt(pos) == '+' || src.charAt(pos) == '-') {
            pos++;
        }
        while (pos < src.length()) {
            char c = src.charAt(pos);
            char prev = src.charAt(pos - 1);
            boolean hexNumber = src.substring(start, pos).replaceFirst("^[+-]", "").toLowerCase().startsWith("0x");
            boolean exponentSign = (c == '+' || c == '-')
                    && (hexNumber ? prev == 'p' || prev == 'P' : prev == 'e' || prev == 'E');
            if (Character.isLetterOrDigit(c) || c == '_' || c == '.' || exponentSign) {
                pos++;
            } else {
                break;
            }
        }
        String text = src.substring(start, pos);
        out.add(new Token(Type.LITERAL, text, numberValue(text, start), start, space));
    }

    /** Go's untyped constant as a template argument: a float when written with . e or p (not hex e), else an int. */
    private Object numberValue(String text, int at) throws TemplateException {
        String t = text.replace("_", "");
        boolean negative = t.startsWith("-");
        if (t.startsWith("-") || t.startsWith("+")) {
            t = t.substring(1);
        }
        String lower = t.toLowerCase();
        if (lower.endsWith("i")) {
            throw error(at, "complex number " + text + " is not supported");
        }
        try {
            boolean hex = lower.startsWith("0x");
            boolean isFloat = hex ? lower.contains("p") || lower.contains(".") : lower.matches(".*[.e].*");
            if (isFloat) {
                double d = hex ? Double.parseDouble(lower.contains("p") ? lower : lower + "p0") : Double.parseDouble(t);
                return negative ? -d : d;
            }
            BigInteger v;
            if (hex) {
                v = new BigInteger(t.substring(2), 16);
            } else if (lower.startsWith("0o")) {
                v = new BigInteger(t.substring(2), 8);
            } else if (lower.startsWith("0b")) {
                v = new BigInteger(t.substring(2), 2);
            } else if (t.length() > 1 && t.startsWith("0")) {
                v = new BigInteger(t.substring(1), 8);
            } else {
                v = new BigInteger(t);
            }
            return (negative ? v.negate() : v).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw error(at, "bad number syntax: " + text);
        }
    }

    /** A quoted literal from {@code pos} (its opening quote) to its closing {@code quote}, on one line. */
    private String quoted(char quote, String what) throws TemplateException {
        int start = pos++;
        while (true) {
            if (pos >= src.length() || src.charAt(pos) == '\n') {
                throw error(start, "unterminated " + what);
            }
            char c = src.charAt(pos++);
            if (c == '\\') {
                pos++;
            } else if (c == quote) {
                return src.substring(start, pos);
            }
        }
    }

    private String stringValue(int start) throws TemplateException {
        return unescape(src.substring(start + 1, pos - 1), start, '"');
    }

    private Long charValue(int start) throws TemplateException {
        String s = unescape(src.substring(start + 1, pos - 1), start, '\'');
        if (s.codePointCount(0, s.length()) != 1) {
            throw error(start, "malformed character constant: " + src.substring(start, pos));
        }
        return (long) s.codePointAt(0);
    }

    /** Go's escapes in an interpreted string or character literal. */
    private static String unescape(String s, int at, char quote) throws TemplateException {
        StringBuilder sb = new StringBuilder();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\') {
                flush(bytes, sb);
                sb.append(c);
                continue;
            }
            if (++i >= s.length()) {
                throw error(at, "bad escape in " + s);
            }
            char e = s.charAt(i);
            switch (e) {
                case 'a' -> sb.append('\u0007');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'v' -> sb.append('\u000b');
                case '\\' -> sb.append('\\');
                case '"', '\'' -> {
                    if (e != quote) {
                        throw error(at, "unknown escape \\" + e);
                    }
                    sb.append(e);
                }
                case 'x', 'u', 'U' -> {
                    int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    int cp = hex(s, i + 1, n, at);
                    i += n;
                    if (e == 'x') {
                        bytes.write(cp);
                        continue;
                    }
                    flush(bytes, sb);
                    sb.appendCodePoint(cp);
                }
                default -> {
                    if (e < '0' || e > '7' || i + 2 >= s.length()) {
                        throw error(at, "unknown escape \\" + e);
                    }
                    bytes.write(Integer.parseInt(s.substring(i, i + 3), 8));
                    i += 2;
                    continue;
                }
            }
            flush(bytes, sb);
        }
        flush(bytes, sb);
        return sb.toString();
    }

    private static void flush(java.io.ByteArrayOutputStream bytes, StringBuilder sb) {
        if (bytes.size() > 0) {
            sb.append(bytes.toString(StandardCharsets.UTF_8));
            bytes.reset();
        }
    }

    private static int hex(String s, int from, int n, int at) throws TemplateException {
        if (from + n > s.length()) {
            throw error(at, "bad escape in " + s);
        }
        try {
            return Integer.parseInt(s.substring(from, from + n), 16);
        } catch (NumberFormatException e) {
            throw error(at, "bad escape in " + s);
        }
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean isWordStart(char c) {
        return c == '_' || Character.isLetter(c);
    }

    private static int countSpace(String s, int from) {
        int i = from;
        while (i < s.length() && isSpace(s.charAt(i))) {
            i++;
        }
        return i - from;
    }

    static TemplateException error(int offset, String message) {
        return new TemplateException("at offset " + offset + ": " + message);
    }
}
