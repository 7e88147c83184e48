package io.nodelabeller.template;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Go text/template's predefined functions ({@code and or not len index print printf println eq ne lt le gt ge html js
 * urlquery call}; {@code and}/{@code or} are evaluated by {@link Executor}, lazily as in Go) with Go's argument checks
 * and errors. The Sprig functions rules may also call are in {@link Sprig} and the classes beside it; Sprig's
 * {@code slice} takes the place of Go's, as it does in NFD's FuncMap.
 */
final class Functions {

    /** A function: gets its evaluated arguments, returns a value or fails with a message. */
    @FunctionalInterface
    interface Fn {
        Object call(List<Object> args) throws TemplateException;
    }

    static final Set<String> LAZY = Set.of("and", "or");

    private static final Map<String, Fn> ALL = new HashMap<>();
    private static final Map<String, SprigDates.Timed> TIMED = new HashMap<>();

    static {
        ALL.put("not", a -> !Executor.truth(arity("not", a, 1).get(0)));
        ALL.put("len", a -> len(arity("len", a, 1).get(0)));
        ALL.put("index", Functions::index);
        ALL.put("print", GoFormat::sprint);
        ALL.put("println", GoFormat::sprintln);
        ALL.put("printf", a -> {
            if (a.isEmpty() || !(a.get(0) instanceof String f)) {
                throw new TemplateException("printf needs a format string first");
            }
            return GoFormat.sprintf(f, a.subList(1, a.size()));
        });
        ALL.put("html", a -> htmlEscape(text(a)));
        ALL.put("js", a -> jsEscape(text(a)));
        ALL.put("urlquery", a -> GoUrl.queryEscape(text(a)));
        ALL.put("call", a -> {
            if (a.isEmpty() || a.get(0) == null) {
                throw new TemplateException("call of nil");
            }
            // no template value is a function: Go's call fails on every one
            throw new TemplateException("non-function of type " + GoFormat.typeName(a.get(0)));
        });
        ALL.put("eq", Functions::eq);
        ALL.put("ne", a -> !(Boolean) eq(arity("ne", a, 2)));
        ALL.put("lt", a -> compare(arity("lt", a, 2)) < 0);
        ALL.put("le", a -> compare(arity("le", a, 2)) <= 0);
        ALL.put("gt", a -> compare(arity("gt", a, 2)) > 0);
        ALL.put("ge", a -> compare(arity("ge", a, 2)) >= 0);
        Sprig.register(ALL);
        SprigCollections.register(ALL);
        SprigText.register(ALL);
        SprigDates.register(TIMED);
    }

    private Functions() {
    }

    /** text/template's evalArgs: a lone string as it is, anything else as fmt.Sprint prints it. */
    private static String text(List<Object> a) {
        return a.size() == 1 && a.get(0) instanceof String s ? s : GoFormat.sprint(a);
    }

    /** template.HTMLEscapeString. */
    private static String htmlEscape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("&#34;");
                case '\'' -> out.append("&#39;");
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case 0 -> out.append('\uFFFD');
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** template.JSEscapeString: quotes, backslash, {@code < > & =} and what is not printable as JavaScript escapes. */
    private static String jsEscape(String s) {
        StringBuilder out = new StringBuilder();
        s.codePoints().forEach(c -> {
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\'' -> out.append("\\'");
                case '"' -> out.append("\\\"");
                case '<' -> out.append("\\u003C");
                case '>' -> out.append("\\u003E");
                case '&' -> out.append("\\u0026");
                case '=' -> out.append("\\u003D");
                default -> {
                    if (c < ' ') {
                        out.append(String.format("\\u00%02X", c));
                    } else if (c >= 0x80 && !GoFormat.isPrint(c)) {
                        out.append(String.format("\\u%04X", c));
                    } else {
                        out.appendCodePoint(c);
                    }
                }
            }
        });
        return out.toString();
    }

    /** Every function name a template may call. */
    static Set<String> names() {
        Set<String> names = new java.util.HashSet<>(ALL.keySet());
        names.addAll(LAZY);
        names.addAll(TIMED.keySet());
        return Collections.unmodifiableSet(names);
    }

    static Fn get(String name) {
        return ALL.get(name);
    }

    /** A function that reads the clock, or null. */
    static SprigDates.Timed timed(String name) {
        return TIMED.get(name);
    }

    /**
     * A function's result may hold at most {@link Executor#MAX_OUTPUT} characters or items: {@code repeat},
     * {@code until}, {@code indent} or {@code randAlpha} with a count of a billion fail the rule instead of filling
     * the agent's memory (Go would try, and run the node out of memory).
     */
    static void within(String fn, long size) throws TemplateException {
        if (size > Executor.MAX_OUTPUT) {
            throw new TemplateException(fn + ": a result of " + size + " characters or items exceeds the "
                    + Executor.MAX_OUTPUT + " a template may make");
        }
    }

    static List<Object> arity(String name, List<Object> args, int n) throws TemplateException {
        if (args.size() != n) {
            throw new TemplateException("wrong number of args for " + name + ": want " + n + " got " + args.size());
        }
        return args;
    }

    static long len(Object v) throws TemplateException {
        if (v instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8).length;
        }
        if (v instanceof List<?> l) {
            return l.size();
        }
        if (v instanceof Map<?, ?> m) {
            return m.size();
        }
        throw new TemplateException("len of " + (v == null ? "nil pointer" : "type " + GoFormat.typeName(v)));
    }

    private static Object index(List<Object> a) throws TemplateException {
        if (a.isEmpty()) {
            throw new TemplateException("wrong number of args for index: want at least 1 got 0");
        }
        Object item = a.get(0);
        for (Object key : a.subList(1, a.size())) {
            if (item instanceof Map<?, ?> m) {
                if (!(key instanceof String)) {
                    throw new TemplateException("index: value has type " + GoFormat.typeName(key) + "; should be string");
                }
                item = m.containsKey(key) ? m.get(key) : zeroValueOf(m);
            } else if (item instanceof List<?> l) {
                item = l.get(position(key, l.size()));
            } else if (item instanceof String s) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                item = (long) (bytes[position(key, bytes.length)] & 0xff);
            } else if (item == null) {
                throw new TemplateException("index of untyped nil");
            } else {
                throw new TemplateException("can't index item of type " + GoFormat.typeName(item));
            }
        }
        return item;
    }

    /** A missing key reads as the zero value of the map's value type (Go), which the other values tell. */
    private static Object zeroValueOf(Map<?, ?> m) {
        Object sample = m.isEmpty() ? null : m.values().iterator().next();
        if (sample instanceof String) {
            return "";
        }
        if (sample instanceof List) {
            return List.of();
        }
        if (sample instanceof Map) {
            return Map.of();
        }
        return null;
    }

    private static int position(Object key, int size) throws TemplateException {
        Long n = Int64.of(key);
        if (n == null) {
            throw new TemplateException("cannot index slice/array with type " + GoFormat.typeName(key));
        }
        if (n < 0 || n >= size) {
            throw new TemplateException("index out of range: " + n);
        }
        return (int) (long) n;
    }

    /** Go's basic kinds for comparison: 'b'ool, 'i'nt, 'f'loat, 's'tring, or 0 when not comparable in order. */
    private static char kind(Object v) {
        return v instanceof Boolean ? 'b' : Int64.of(v) != null ? 'i' : v instanceof Double ? 'f' : v instanceof String ? 's' : 0;
    }

    private static Object eq(List<Object> a) throws TemplateException {
        if (a.size() < 2) {
            throw new TemplateException("missing argument for comparison");
        }
        Object first = a.get(0);
        if (first instanceof GoTime) {
            // a struct Go compares with ==: the same instant, zone and monotonic reading
            for (Object other : a.subList(1, a.size())) {
                if (!(other instanceof GoTime)) {
                    throw new TemplateException("incompatible types for comparison");
                }
                if (first.equals(other)) {
                    return true;
                }
            }
            return false;
        }
        if (first != null && kind(first) == 0) {
            throw new TemplateException("invalid type for comparison");
        }
        for (Object other : a.subList(1, a.size())) {
            if (other != null && first != null && kind(other) != kind(first)) {
                throw new TemplateException("incompatible types for comparison");
            }
            if (other != null && kind(other) == 0) {
                throw new TemplateException("invalid type for comparison");
            }
            if (Objects.equals(first, other) || (kind(first) == 'i' && Objects.equals(Int64.of(first), Int64.of(other)))) {
                return true;
            }
        }
        return false;
    }

    private static int compare(List<Object> a) throws TemplateException {
        Object x = a.get(0);
        Object y = a.get(1);
        char kx = kind(x);
        char ky = kind(y);
        if (kx == 0 || ky == 0 || kx == 'b' || ky == 'b') {
            throw new TemplateException("invalid type for comparison");
        }
        if (kx != ky) {
            throw new TemplateException("incompatible types for comparison");
        }
        if (x instanceof String s) {
            return Arrays.compareUnsigned(s.getBytes(StandardCharsets.UTF_8), ((String) y).getBytes(StandardCharsets.UTF_8));
        }
        return kx == 'i' ? Long.compare(Int64.of(x), Int64.of(y)) : Double.compare((Double) x, (Double) y);
    }
}
