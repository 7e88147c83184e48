package io.nodelabeller.template;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The Sprig functions (Masterminds/sprig v3, which NFD adds to its templates) that label rules use: strings,
 * lists, integer arithmetic, defaults and RE2 regular expressions. Argument order and edge cases follow Sprig's
 * functions.go (e.g. {@code "foo" | trimPrefix "f"}; {@code substr} and {@code trunc} count bytes; {@code int}
 * reads "0x1f" and "017" as Go's base prefixes and unreadable text as 0). Sprig functions not listed here are
 * refused when the template is read.
 */
final class Sprig {

    private Sprig() {
    }

    static void register(Map<String, Functions.Fn> f) {
        f.put("lower", a -> str("lower", a, 0, 1).toLowerCase(java.util.Locale.ROOT));
        f.put("upper", a -> str("upper", a, 0, 1).toUpperCase(java.util.Locale.ROOT));
        f.put("trim", a -> str("trim", a, 0, 1).strip());
        f.put("trimAll", a -> trimCutset(str("trimAll", a, 1, 2), str("trimAll", a, 0, 2)));
        f.put("trimPrefix", a -> {
            String s = str("trimPrefix", a, 1, 2);
            String p = str("trimPrefix", a, 0, 2);
            return s.startsWith(p) ? s.substring(p.length()) : s;
        });
        f.put("trimSuffix", a -> {
            String s = str("trimSuffix", a, 1, 2);
            String p = str("trimSuffix", a, 0, 2);
            return s.endsWith(p) ? s.substring(0, s.length() - p.length()) : s;
        });
        f.put("trunc", a -> {
            byte[] b = bytes(str("trunc", a, 1, 2));
            long c = SprigText.goInt("trunc", a, 0);
            if (c < 0 && b.length + c > 0) {
                return text(b, (int) (b.length + c), b.length);
            }
            return c >= 0 && b.length > c ? text(b, 0, (int) c) : text(b, 0, b.length);
        });
        f.put("substr", a -> {
            byte[] b = bytes(str("substr", a, 2, 3));
            long start = SprigText.goInt("substr", a, 0);
            long end = SprigText.goInt("substr", a, 1);
            if (start < 0) {
                return text(b, 0, (int) Math.min(Math.max(end, 0), b.length));
            }
            if (start > b.length) {
                throw new TemplateException("error calling substr: slice bounds out of range [" + start + ":" + b.length + "]");
            }
            return end < 0 || end > b.length ? text(b, (int) start, b.length) : text(b, (int) start, (int) Math.max(end, start));
        });
        f.put("replace", a -> str("replace", a, 2, 3).replace(str("replace", a, 0, 3), str("replace", a, 1, 3)));
        f.put("repeat", a -> {
            String s = str("repeat", a, 1, 2);
            long count = SprigText.goInt("repeat", a, 0);
            if (count < 0) {
                throw new TemplateException("strings: negative Repeat count");
            }
            Functions.within("repeat", s.isEmpty() ? 0 : Math.multiplyHigh(count, s.length()) != 0 ? Long.MAX_VALUE : count * s.length());
            return s.repeat((int) count);
        });
        f.put("contains", a -> str("contains", a, 1, 2).contains(str("contains", a, 0, 2)));
        f.put("hasPrefix", a -> str("hasPrefix", a, 1, 2).startsWith(str("hasPrefix", a, 0, 2)));
        f.put("hasSuffix", a -> str("hasSuffix", a, 1, 2).endsWith(str("hasSuffix", a, 0, 2)));
        f.put("nospace", a -> str("nospace", a, 0, 1).replaceAll("\\s", ""));
        f.put("quote", a -> joinNonNil(a, v -> GoFormat.quote(toString(v))));
        f.put("squote", a -> joinNonNil(a, v -> "'" + toString(v) + "'"));
        f.put("cat", a -> joinNonNil(a, Sprig::toString));
        f.put("toString", a -> toString(Functions.arity("toString", a, 1).get(0)));
        f.put("splitList", a -> new ArrayList<Object>(Arrays.asList(
                str("splitList", a, 1, 2).split(java.util.regex.Pattern.quote(str("splitList", a, 0, 2)), -1))));
        f.put("join", a -> {
            Functions.arity("join", a, 2);
            List<String> parts = new ArrayList<>();
            for (Object o : list("join", a.get(1), true)) {
                if (o != null) {
                    parts.add(toString(o));
                }
            }
            return String.join(str("join", a, 0, 2), parts);
        });
        f.put("list", ArrayList::new);
        f.put("first", a -> {
            List<?> l = list("first", Functions.arity("first", a, 1).get(0), false);
            return l.isEmpty() ? null : l.get(0);
        });
        f.put("last", a -> {
            List<?> l = list("last", Functions.arity("last", a, 1).get(0), false);
            return l.isEmpty() ? null : l.get(l.size() - 1);
        });
        f.put("rest", a -> {
            List<?> l = list("rest", Functions.arity("rest", a, 1).get(0), false);
            return l.isEmpty() ? null : new ArrayList<Object>(l.subList(1, l.size()));
        });
        f.put("initial", a -> {
            List<?> l = list("initial", Functions.arity("initial", a, 1).get(0), false);
            return l.isEmpty() ? null : new ArrayList<Object>(l.subList(0, l.size() - 1));
        });
        f.put("has", a -> list("has", Functions.arity("has", a, 2).get(1), false).contains(a.get(0)));
        f.put("uniq", a -> new ArrayList<Object>(new LinkedHashSet<>(list("uniq", Functions.arity("uniq", a, 1).get(0), false))));
        f.put("sortAlpha", a -> {
            List<String> out = new ArrayList<>();
            for (Object o : list("sortAlpha", Functions.arity("sortAlpha", a, 1).get(0), true)) {
                out.add(toString(o));
            }
            out.sort(null);
            return new ArrayList<Object>(out);
        });
        f.put("atoi", a -> {
            try {
                return Long.parseLong(str("atoi", a, 0, 1));
            } catch (NumberFormatException e) {
                return 0L;
            }
        });
        f.put("int", a -> toInt64(Functions.arity("int", a, 1).get(0)));
        f.put("int64", a -> new Int64(toInt64(Functions.arity("int64", a, 1).get(0))));
        f.put("add", a -> {
            long sum = 0;
            for (Object o : a) {
                sum += toInt64(o);
            }
            return new Int64(sum);
        });
        f.put("add1", a -> new Int64(toInt64(Functions.arity("add1", a, 1).get(0)) + 1));
        f.put("sub", a -> new Int64(toInt64(Functions.arity("sub", a, 2).get(0)) - toInt64(a.get(1))));
        f.put("mul", a -> {
            long p = 1;
            for (Object o : a) {
                p *= toInt64(o);
            }
            return new Int64(p);
        });
        f.put("div", a -> divide("div", a, false));
        f.put("mod", a -> divide("mod", a, true));
        f.put("max", a -> new Int64(a.stream().mapToLong(o -> toInt64(o)).max().orElseThrow()));
        f.put("min", a -> new Int64(a.stream().mapToLong(o -> toInt64(o)).min().orElseThrow()));
        f.put("default", a -> {
            if (a.isEmpty()) {
                throw new TemplateException("wrong number of args for default: want at least 1 got 0");
            }
            return a.size() < 2 || empty(a.get(1)) ? a.get(0) : a.get(1);
        });
        f.put("empty", a -> empty(Functions.arity("empty", a, 1).get(0)));
        f.put("coalesce", a -> a.stream().filter(o -> !empty(o)).findFirst().orElse(null));
        f.put("ternary", a -> {
            Functions.arity("ternary", a, 3);
            if (!(a.get(2) instanceof Boolean b)) {
                throw new TemplateException("ternary: condition has type " + GoFormat.typeName(a.get(2)) + "; should be bool");
            }
            return b ? a.get(0) : a.get(1);
        });
        f.put("regexMatch", a -> regex("regexMatch", a, 0, 2).matcher(str("regexMatch", a, 1, 2)).find());
        f.put("regexFind", a -> {
            Matcher m = regex("regexFind", a, 0, 2).matcher(str("regexFind", a, 1, 2));
            return m.find() ? m.group() : "";
        });
        f.put("regexReplaceAll", a -> replaceAll(regex("regexReplaceAll", a, 0, 3), str("regexReplaceAll", a, 1, 3),
                str("regexReplaceAll", a, 2, 3), false));
        f.put("regexReplaceAllLiteral", a -> replaceAll(regex("regexReplaceAllLiteral", a, 0, 3),
                str("regexReplaceAllLiteral", a, 1, 3), str("regexReplaceAllLiteral", a, 2, 3), true));
    }

    /** Go's Regexp.ReplaceAllString: {@code $1}, {@code ${1}}, {@code $name}, {@code ${name}}, {@code $$}. */
    private static String replaceAll(Pattern p, String s, String replacement, boolean literal) {
        Matcher m = p.matcher(s);
        StringBuilder out = new StringBuilder();
        int copied = 0;
        int from = 0;
        int lastEnd = -1;
        while (from <= s.length() && m.find(from)) {
            int start = m.start();
            int end = m.end();
            boolean empty = start == end;
            if (!(empty && start == lastEnd)) {
                // as in Go, an empty match right after the previous match is not replaced
                out.append(s, copied, start).append(literal ? replacement : expand(m, replacement));
                copied = end;
                lastEnd = end;
            }
            from = empty ? end + (end < s.length() ? Character.charCount(s.codePointAt(end)) : 1) : end;
        }
        return out.append(s, copied, s.length()).toString();
    }

    private static String expand(Matcher m, String template) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '$' || i + 1 >= template.length()) {
                out.append(c);
                i++;
                continue;
            }
            if (template.charAt(i + 1) == '$') {
                out.append('$');
                i += 2;
                continue;
            }
            boolean brace = template.charAt(i + 1) == '{';
            int start = i + (brace ? 2 : 1);
            int end = start;
            while (end < template.length() && (Character.isLetterOrDigit(template.charAt(end)) || template.charAt(end) == '_')) {
                end++;
            }
            if (end == start || (brace && (end >= template.length() || template.charAt(end) != '}'))) {
                out.append('$');
                i++;
                continue;
            }
            String name = template.substring(start, end);
            i = brace ? end + 1 : end;
            String group = null;
            if (name.chars().allMatch(Character::isDigit)) {
                int n = name.length() > 8 ? Integer.MAX_VALUE : Integer.parseInt(name);
                group = n <= m.groupCount() ? m.group(n) : null;
            } else {
                try {
                    group = m.group(name);
                } catch (IllegalArgumentException unknownName) {
                    group = null;
                }
            }
            out.append(group == null ? "" : group);
        }
        return out.toString();
    }

    private static String str(String fn, List<Object> a, int i, int n) throws TemplateException {
        return SprigText.string(fn, Functions.arity(fn, a, n), i);
    }

    private static List<?> list(String fn, Object v, boolean nilIsEmpty) throws TemplateException {
        return v == null && nilIsEmpty ? List.of() : SprigCollections.elements(fn, v, "Cannot find " + fn + " on type ", "");
    }

    private static Pattern regex(String fn, List<Object> a, int i, int n) throws TemplateException {
        String p = str(fn, a, i, n);
        try {
            return Pattern.compile(p);
        } catch (PatternSyntaxException e) {
            throw new TemplateException(fn + ": " + e.getMessage());
        }
    }

    /** Sprig's toString (strval): strings as they are, everything else as %v. */
    static String toString(Object v) {
        return v instanceof String s ? s : GoFormat.value(v);
    }

    /** Sprig's empty: nil, false, 0, "" and empty lists and maps. */
    static boolean empty(Object v) {
        return !Executor.truth(v);
    }

    /** spf13/cast's ToInt64 as Sprig uses it: numbers truncated, text read with Go's base prefixes, else 0. */
    static long toInt64(Object v) {
        Long integer = Int64.of(v);
        if (integer != null) {
            return integer;
        }
        if (v instanceof Double d) {
            return (long) (double) d;
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof String s) {
            String t = s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
            boolean negative = t.startsWith("-");
            String u = negative || t.startsWith("+") ? t.substring(1) : t;
            try {
                long r;
                if (u.startsWith("0x") || u.startsWith("0X")) {
                    r = Long.parseLong(u.substring(2).replace("_", ""), 16);
                } else if (u.startsWith("0b") || u.startsWith("0B")) {
                    r = Long.parseLong(u.substring(2).replace("_", ""), 2);
                } else if (u.startsWith("0o") || u.startsWith("0O")) {
                    r = Long.parseLong(u.substring(2).replace("_", ""), 8);
                } else if (u.length() > 1 && u.startsWith("0")) {
                    r = Long.parseLong(u.substring(1).replace("_", ""), 8);
                } else {
                    r = Long.parseLong(u);
                }
                return negative ? -r : r;
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    private static Int64 divide(String fn, List<Object> a, boolean mod) throws TemplateException {
        Functions.arity(fn, a, 2);
        long x = toInt64(a.get(0));
        long y = toInt64(a.get(1));
        if (y == 0) {
            throw new TemplateException("error calling " + fn + ": runtime error: integer divide by zero");
        }
        return new Int64(mod ? x % y : x / y);
    }

    private static String trimCutset(String s, String cutset) {
        int b = 0;
        int e = s.length();
        while (b < e && cutset.indexOf(s.charAt(b)) >= 0) {
            b++;
        }
        while (e > b && cutset.indexOf(s.charAt(e - 1)) >= 0) {
            e--;
        }
        return s.substring(b, e);
    }

    private interface Text {
        String of(Object v);
    }

    private static String joinNonNil(List<Object> a, Text each) {
        List<String> parts = new ArrayList<>();
        for (Object o : a) {
            if (o != null) {
                parts.add(each.of(o));
            }
        }
        return String.join(" ", parts);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }
}
