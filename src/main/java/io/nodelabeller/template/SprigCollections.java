package io.nodelabeller.template;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Sprig v3.3.0's list and dict functions (list.go, dict.go), as NFD's templates have them. Lists are any list value;
 * dicts are what {@code dict} makes ({@link Dict}, Go's {@code map[string]interface {}}): a rule's matched elements
 * are {@code map[string]string} in NFD, which Sprig's dict functions refuse as Go's text/template does (wrong type for
 * value). Element equality is Go's {@code reflect.DeepEqual} on these values ({@link Objects#equals}: an int 1 and a
 * float 1.0 differ).
 */
final class SprigCollections {

    /** Go's {@code map[string]interface {}}: the maps {@code dict} makes and the dict functions take. */
    static final class Dict extends TreeMap<String, Object> {
        Dict() {
        }

        Dict(Map<String, ?> m) {
            super(m);
        }
    }

    private SprigCollections() {
    }

    static void register(Map<String, Functions.Fn> f) {
        f.put("tuple", ArrayList::new);
        for (String name : List.of("append", "push", "mustAppend", "mustPush")) {
            f.put(name, a -> {
                List<Object> out = copy(name, Functions.arity(name, a, 2).get(0), "Cannot push on type ");
                out.add(a.get(1));
                return out;
            });
        }
        for (String name : List.of("prepend", "mustPrepend")) {
            f.put(name, a -> {
                List<Object> out = copy(name, Functions.arity(name, a, 2).get(0), "Cannot prepend on type ");
                out.add(0, a.get(1));
                return out;
            });
        }
        f.put("mustFirst", a -> {
            List<Object> l = copy("mustFirst", Functions.arity("mustFirst", a, 1).get(0), "Cannot find first on type ");
            return l.isEmpty() ? null : l.get(0);
        });
        f.put("mustLast", a -> {
            List<Object> l = copy("mustLast", Functions.arity("mustLast", a, 1).get(0), "Cannot find last on type ");
            return l.isEmpty() ? null : l.get(l.size() - 1);
        });
        f.put("mustRest", a -> {
            List<Object> l = copy("mustRest", Functions.arity("mustRest", a, 1).get(0), "Cannot find rest on type ");
            return l.isEmpty() ? new ArrayList<>() : new ArrayList<>(l.subList(1, l.size())); // nil []interface {}: []
        });
        f.put("mustInitial", a -> {
            List<Object> l = copy("mustInitial", Functions.arity("mustInitial", a, 1).get(0), "Cannot find initial on type ");
            return l.isEmpty() ? new ArrayList<>() : new ArrayList<>(l.subList(0, l.size() - 1));
        });
        for (String name : List.of("reverse", "mustReverse")) {
            f.put(name, a -> {
                List<Object> l = copy(name, Functions.arity(name, a, 1).get(0), "Cannot find reverse on type ");
                Collections.reverse(l);
                return l;
            });
        }
        for (String name : List.of("compact", "mustCompact")) {
            f.put(name, a -> {
                List<Object> l = copy(name, Functions.arity(name, a, 1).get(0), "Cannot compact on type ");
                l.removeIf(Sprig::empty);
                return l;
            });
        }
        f.put("mustUniq", a -> {
            List<Object> out = new ArrayList<>();
            for (Object o : copy("mustUniq", Functions.arity("mustUniq", a, 1).get(0), "Cannot find uniq on type ")) {
                if (!out.contains(o)) {
                    out.add(o);
                }
            }
            return out;
        });
        for (String name : List.of("without", "mustWithout")) {
            f.put(name, a -> {
                if (a.isEmpty()) {
                    throw new TemplateException("wrong number of args for " + name + ": want at least 1 got 0");
                }
                List<Object> l = copy(name, a.get(0), "Cannot find without on type ");
                List<Object> omit = a.subList(1, a.size());
                l.removeIf(omit::contains);
                return l;
            });
        }
        f.put("mustHas", a -> {
            Object haystack = Functions.arity("mustHas", a, 2).get(1);
            return haystack != null && copy("mustHas", haystack, "Cannot find has on type ").contains(a.get(0));
        });
        for (String name : List.of("slice", "mustSlice")) {
            f.put(name, a -> slice(name, a));
        }
        f.put("concat", a -> {
            List<Object> out = new ArrayList<>();
            for (Object l : a) {
                out.addAll(copy("concat", l, "Cannot concat type ", " as list"));
            }
            return out; // Go's nil []interface {} prints as [] too
        });
        for (String name : List.of("chunk", "mustChunk")) {
            f.put(name, a -> {
                long size = SprigText.goInt(name, Functions.arity(name, a, 2), 0);
                List<Object> l = copy(name, a.get(1), "Cannot chunk type ");
                if (size <= 0) {
                    throw new TemplateException("error calling " + name + ": runtime error: integer divide by zero");
                }
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < l.size(); i += (int) size) {
                    out.add(new ArrayList<>(l.subList(i, (int) Math.min(l.size(), i + size))));
                }
                return out;
            });
        }
        f.put("until", a -> untilStep(0, SprigText.goInt("until", Functions.arity("until", a, 1), 0),
                SprigText.goInt("until", a, 0) < 0 ? -1 : 1));
        f.put("untilStep", a -> untilStep(SprigText.goInt("untilStep", Functions.arity("untilStep", a, 3), 0),
                SprigText.goInt("untilStep", a, 1), SprigText.goInt("untilStep", a, 2)));
        f.put("seq", SprigCollections::seq);

        // url.go: url.Parse's parts as a dict, and a URL written from such a dict (Go's URL.String)
        f.put("urlParse", a -> {
            GoUrl u;
            try {
                u = GoUrl.parse(SprigText.string("urlParse", Functions.arity("urlParse", a, 1), 0));
            } catch (GoUrl.Invalid e) {
                throw new TemplateException("error calling urlParse: unable to parse url: " + e.getMessage());
            }
            Dict d = new Dict();
            d.put("scheme", u.scheme);
            d.put("host", u.host);
            d.put("hostname", u.hostname());
            d.put("path", u.path);
            d.put("query", u.rawQuery);
            d.put("opaque", u.opaque);
            d.put("fragment", u.fragment);
            d.put("userinfo", u.userinfo());
            return d;
        });
        f.put("urlJoin", a -> {
            Dict d = dict("urlJoin", Functions.arity("urlJoin", a, 1), 0);
            String userinfo = urlPart(d, "userinfo");
            String username = null;
            String password = null;
            if (!userinfo.isEmpty()) { // read as Go reads the user information of proto://USERINFO@host
                try {
                    GoUrl user = GoUrl.parse("proto://" + userinfo + "@host");
                    username = user.username;
                    password = user.password;
                } catch (GoUrl.Invalid e) {
                    throw new TemplateException("error calling urlJoin: unable to parse userinfo in dict: " + e.getMessage());
                }
            }
            return GoUrl.of(urlPart(d, "scheme"), urlPart(d, "opaque"), username, password, urlPart(d, "host"),
                    urlPart(d, "path"), urlPart(d, "query"), urlPart(d, "fragment")).toString();
        });
        f.put("dict", a -> {
            Dict d = new Dict();
            for (int i = 0; i < a.size(); i += 2) {
                d.put(Sprig.toString(a.get(i)), i + 1 < a.size() ? a.get(i + 1) : "");
            }
            return d;
        });
        f.put("get", a -> {
            Dict d = dict("get", Functions.arity("get", a, 2), 0);
            String k = SprigText.string("get", a, 1);
            return d.containsKey(k) ? d.get(k) : "";
        });
        f.put("set", a -> {
            Dict d = dict("set", Functions.arity("set", a, 3), 0);
            d.put(SprigText.string("set", a, 1), a.get(2));
            return d;
        });
        f.put("unset", a -> {
            Dict d = dict("unset", Functions.arity("unset", a, 2), 0);
            d.remove(SprigText.string("unset", a, 1));
            return d;
        });
        f.put("hasKey", a -> dict("hasKey", Functions.arity("hasKey", a, 2), 0).containsKey(SprigText.string("hasKey", a, 1)));
        f.put("pluck", a -> {
            if (a.isEmpty()) {
                throw new TemplateException("wrong number of args for pluck: want at least 1 got 0");
            }
            String k = SprigText.string("pluck", a, 0);
            List<Object> out = new ArrayList<>();
            for (int i = 1; i < a.size(); i++) {
                Dict d = dict("pluck", a, i);
                if (d.containsKey(k)) {
                    out.add(d.get(k));
                }
            }
            return out;
        });
        f.put("keys", a -> {
            // Go ranges over a map in no order; each dict's keys come sorted here, so that a label never flaps
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                out.addAll(dict("keys", a, i).keySet());
            }
            return out;
        });
        f.put("values", a -> new ArrayList<>(dict("values", Functions.arity("values", a, 1), 0).values()));
        f.put("pick", a -> {
            Dict d = dict("pick", atLeast("pick", a, 1), 0);
            Dict out = new Dict();
            for (int i = 1; i < a.size(); i++) {
                String k = SprigText.string("pick", a, i);
                if (d.containsKey(k)) {
                    out.put(k, d.get(k));
                }
            }
            return out;
        });
        f.put("omit", a -> {
            Dict out = new Dict(dict("omit", atLeast("omit", a, 1), 0));
            for (int i = 1; i < a.size(); i++) {
                out.remove(SprigText.string("omit", a, i));
            }
            return out;
        });
        for (String name : List.of("merge", "mustMerge", "mergeOverwrite", "mustMergeOverwrite")) {
            boolean overwrite = name.contains("Overwrite");
            f.put(name, a -> {
                Dict dst = dict(name, atLeast(name, a, 1), 0);
                for (int i = 1; i < a.size(); i++) {
                    merge(dst, dict(name, a, i), overwrite);
                }
                return dst;
            });
        }
        for (String name : List.of("deepCopy", "mustDeepCopy")) {
            f.put(name, a -> deepCopy(Functions.arity(name, a, 1).get(0)));
        }
        f.put("dig", a -> {
            if (a.size() < 3) {
                throw new TemplateException("error calling dig: dig needs at least three arguments");
            }
            Object step = dict("dig", a, a.size() - 1);
            for (int i = 0; i < a.size() - 2; i++) {
                String k = SprigText.string("dig", a, i);
                if (!(step instanceof Map<?, ?> m)) {
                    throw new TemplateException("error calling dig: interface conversion: interface {} is "
                            + GoFormat.typeName(step) + ", not map[string]interface {}");
                }
                if (!m.containsKey(k)) {
                    return a.get(a.size() - 2);
                }
                step = m.get(k);
            }
            return step;
        });
    }

    /** mergo.Merge / MergeWithOverwrite on two dicts: keys missing (or, with overwrite, any) taken, nested dicts merged. */
    private static void merge(Dict dst, Dict src, boolean overwrite) {
        for (Map.Entry<String, Object> e : src.entrySet()) {
            Object have = dst.get(e.getKey());
            if (have instanceof Dict hd && e.getValue() instanceof Dict sd) {
                merge(hd, sd, overwrite);
            } else if (!dst.containsKey(e.getKey()) || Sprig.empty(have) || (overwrite && !Sprig.empty(e.getValue()))) {
                dst.put(e.getKey(), e.getValue());
            }
        }
    }

    private static Object deepCopy(Object v) {
        if (v instanceof Dict d) {
            Dict out = new Dict();
            d.forEach((k, x) -> out.put(k, deepCopy(x)));
            return out;
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, deepCopy(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(deepCopy(x)));
            return out;
        }
        return v;
    }

    private static List<Object> untilStep(long start, long stop, long step) throws TemplateException {
        List<Object> v = new ArrayList<>();
        if (stop < start) {
            if (step >= 0) {
                return v;
            }
            for (long i = start; i > stop; i += step) {
                add(v, i);
            }
            return v;
        }
        if (step <= 0) {
            return v;
        }
        for (long i = start; i < stop; i += step) {
            add(v, i);
        }
        return v;
    }

    /**
     * Sprig's slice and mustSlice (list.go), which NFD's templates have in place of text/template's builtin
     * {@code slice} (a FuncMap entry overrides a builtin): a list only, from {@code start} (default 0) to {@code end}
     * (default its length), the indexes read as spf13/cast reads an int; an empty list gives nil; a third index is
     * ignored; out of range fails as reflect.Value.Slice panics.
     */
    private static Object slice(String name, List<Object> a) throws TemplateException {
        if (a.isEmpty()) {
            throw new TemplateException("wrong number of args for " + name + ": want at least 1 got 0");
        }
        Object v = a.get(0);
        if (v == null) {
            throw new TemplateException("runtime error: invalid memory address or nil pointer dereference");
        }
        if (!(v instanceof List<?> l)) {
            throw new TemplateException("list should be type of slice or array but " + SprigText.kind(v));
        }
        if (l.isEmpty()) {
            return null;
        }
        long start = a.size() > 1 ? Sprig.toInt64(a.get(1)) : 0;
        long end = a.size() > 2 ? Sprig.toInt64(a.get(2)) : l.size();
        if (start < 0 || end < start || end > l.size()) {
            throw new TemplateException("reflect.Value.Slice: slice index out of range");
        }
        return new ArrayList<Object>(l.subList((int) start, (int) end));
    }

    private static void add(List<Object> items, long i) throws TemplateException {
        if (items.size() == Executor.MAX_OUTPUT) {
            Functions.within("until", items.size() + 1L);
        }
        items.add(i);
    }

    /** Sprig's seq, as the Unix command: {@code seq 3}, {@code seq 2 5}, {@code seq 0 2 10}, space-separated. */
    private static String seq(List<Object> a) throws TemplateException {
        long[] p = new long[a.size()];
        for (int i = 0; i < a.size(); i++) {
            p[i] = SprigText.goInt("seq", a, i);
        }
        List<Object> out;
        switch (p.length) {
            case 1 -> {
                long inc = p[0] < 1 ? -1 : 1;
                out = untilStep(1, p[0] + inc, inc);
            }
            case 2 -> {
                long step = p[1] < p[0] ? -1 : 1;
                out = untilStep(p[0], p[1] + step, step);
            }
            case 3 -> {
                long inc = 1;
                if (p[2] < p[0]) {
                    inc = -1;
                    if (p[1] > 0) {
                        return "";
                    }
                }
                out = untilStep(p[0], p[2] + inc, p[1]);
            }
            default -> {
                return "";
            }
        }
        List<String> s = new ArrayList<>();
        out.forEach(x -> s.add(String.valueOf(x)));
        return String.join(" ", s);
    }

    private static List<Object> atLeast(String fn, List<Object> a, int n) throws TemplateException {
        if (a.size() < n) {
            throw new TemplateException("wrong number of args for " + fn + ": want at least " + n + " got " + a.size());
        }
        return a;
    }

    /** A fresh list of {@code v}'s elements; anything but a list fails with Sprig's message (prefix + Go kind). */
    private static List<Object> copy(String fn, Object v, String prefix) throws TemplateException {
        return copy(fn, v, prefix, "");
    }

    private static List<Object> copy(String fn, Object v, String prefix, String suffix) throws TemplateException {
        return new ArrayList<>(elements(fn, v, prefix, suffix));
    }

    /** {@code v}'s elements; anything but a list fails as Sprig's reflection does: prefix, Go kind, suffix. */
    static List<?> elements(String fn, Object v, String prefix, String suffix) throws TemplateException {
        if (v instanceof List<?> l) {
            return l;
        }
        throw new TemplateException("error calling " + fn + ": " + prefix + SprigText.kind(v) + suffix);
    }

    /** url.go's dictGetOrEmpty: a string, "" when absent, any other kind an error naming it (Go's reflect.Kind). */
    private static String urlPart(Dict d, String key) throws TemplateException {
        if (!d.containsKey(key)) {
            return "";
        }
        Object v = d.get(key);
        if (v instanceof String s) {
            return s;
        }
        if (v == null) { // reflect.TypeOf(nil).Kind(): a nil interface's method, which Go's runtime stops
            throw new TemplateException("error calling urlJoin: runtime error: invalid memory address or nil pointer dereference");
        }
        throw new TemplateException("error calling urlJoin: unable to parse " + key + " key, must be of type string, but "
                + SprigText.kind(v) + " found");
    }

    static Dict dict(String fn, List<Object> a, int i) throws TemplateException {
        Object v = a.get(i);
        if (v instanceof Dict d) {
            return d;
        }
        throw new TemplateException("wrong type for value; expected map[string]interface {}; got "
                + GoFormat.typeName(v) + " (argument " + (i + 1) + " of " + fn + ")");
    }
}
