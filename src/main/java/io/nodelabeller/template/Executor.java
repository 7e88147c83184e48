package io.nodelabeller.template;

import io.nodelabeller.template.Node.Arg;
import io.nodelabeller.template.Node.Command;
import io.nodelabeller.template.Node.Control;
import io.nodelabeller.template.Node.Pipe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a parse tree over data made of Maps, Lists, Strings, Longs, Doubles and Booleans, as Go's text/template
 * executes with {@code Option("missingkey=error")}: a field that names no key of a map is an error, truth is
 * Go's (false, 0, nil and empty are false), maps are ranged in key order, {@code and}/{@code or} stop at the
 * first argument that decides.
 */
final class Executor {

    /** Output beyond this many characters is an error: a template must not grow without bound. */
    static final int MAX_OUTPUT = 1 << 20;
    /** Actions and range iterations beyond this many are an error: {@code range 1000000000} must not hold a cycle. */
    static final int MAX_STEPS = 1_000_000;

    private static final Object NO_FINAL = new Object();

    /** Named templates calling each other nest at most this deep (Go allows 100000, on a growing goroutine stack). */
    static final int MAX_DEPTH = 1000;

    private final StringBuilder out = new StringBuilder();
    private int steps;
    private int depth;
    private List<Object[]> vars = new ArrayList<>();
    private final Map<String, List<Node>> templates;
    private final TemplateClock clock;

    private static final class Jump extends RuntimeException {
        final boolean isBreak;

        Jump(boolean isBreak) {
            super(null, null, false, false);
            this.isBreak = isBreak;
        }
    }

    private Executor(Object data, Map<String, List<Node>> templates, TemplateClock clock) {
        vars.add(new Object[] {"$", data});
        this.templates = templates;
        this.clock = clock;
    }

    /**
     * Runs {@code nodes} over {@code data}; {@code templates}: the named templates it may call; {@code clock}: what
     * {@code now} reads.
     */
    static String run(List<Node> nodes, Map<String, List<Node>> templates, Object data, TemplateClock clock)
            throws TemplateException {
        Executor e = new Executor(data, templates, clock);
        e.walk(nodes, data);
        return e.out.toString();
    }

    /** {@code template} / {@code block}: the named template with dot the pipeline's value and only {@code $} set. */
    private void call(Node.Call c, Object dot) throws TemplateException {
        List<Node> body = templates.get(c.name());
        if (body == null) {
            throw new TemplateException("template: no template \"" + c.name() + "\" associated with template \"\"");
        }
        if (depth >= MAX_DEPTH) {
            throw new TemplateException("exceeded maximum template depth (" + MAX_DEPTH + ")");
        }
        Object value = c.pipe() == null ? null : pipe(c.pipe(), dot);
        List<Object[]> outer = vars;
        vars = new ArrayList<>();
        vars.add(new Object[] {"$", value});
        depth++;
        try {
            walk(body, value);
        } finally {
            depth--;
            vars = outer;
        }
    }

    private void walk(List<Node> nodes, Object dot) throws TemplateException {
        for (Node n : nodes) {
            step();
            if (n instanceof Node.Text t) {
                write(t.text());
            } else if (n instanceof Node.Action a) {
                Object v = pipe(a.pipe(), dot);
                if (a.pipe().vars().isEmpty()) {
                    write(v == null ? "<no value>" : GoFormat.value(v));
                }
            } else if (n instanceof Control c) {
                control(c, dot);
            } else if (n instanceof Node.Call c) {
                call(c, dot);
            } else if (n instanceof Node.LoopJump j) {
                throw new Jump(j.isBreak());
            }
        }
    }

    private void step() throws TemplateException {
        if (++steps > MAX_STEPS) {
            throw new TemplateException("template exceeds " + MAX_STEPS + " steps");
        }
    }

    private void write(String s) throws TemplateException {
        if (out.length() + s.length() > MAX_OUTPUT) {
            throw new TemplateException("output exceeds " + MAX_OUTPUT + " characters");
        }
        out.append(s);
    }

    private void control(Control c, Object dot) throws TemplateException {
        int scope = vars.size();
        try {
            if (c.kind() == Control.Kind.RANGE) {
                range(c, dot);
                return;
            }
            Object v = pipe(c.pipe(), dot);
            if (truth(v)) {
                walk(c.body(), c.kind() == Control.Kind.WITH ? v : dot);
            } else {
                walk(c.elseBody(), dot);
            }
        } finally {
            pop(scope);
        }
    }

    private void range(Control c, Object dot) throws TemplateException {
        Pipe p = c.pipe();
        Object v = pipe(new Pipe(List.of(), false, p.commands()), dot);
        Long bound = Int64.of(v); // range over an integer (Go 1.22)
        List<Object[]> items = new ArrayList<>();
        if (v instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                items.add(new Object[] {(long) i, l.get(i)});
            }
        } else if (v instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
                items.add(new Object[] {e.getKey(), e.getValue()});
            }
        } else if (bound != null) {
            if (p.vars().size() > 1) {
                throw new TemplateException("can't use " + v + " to iterate over more than one variable");
            }
        } else if (v != null) {
            throw new TemplateException("range can't iterate over " + GoFormat.value(v));
        }
        long count = bound != null ? Math.max(0, bound) : items.size();
        if (count == 0) {
            walk(c.elseBody(), dot);
            return;
        }
        int scope = vars.size();
        for (long i = 0; i < count; i++) {
            step();
            Object n = bound != null ? Int64.sameType(v, i) : null;
            Object[] item = bound != null ? new Object[] {n, n} : items.get((int) i);
            if (p.vars().size() == 1) {
                set(p.vars().get(0), item[1], p.assign());
            } else if (p.vars().size() == 2) {
                set(p.vars().get(0), item[0], p.assign());
                set(p.vars().get(1), item[1], p.assign());
            }
            try {
                walk(c.body(), item[1]);
            } catch (Jump j) {
                if (j.isBreak) {
                    break;
                }
            } finally {
                pop(scope);
            }
        }
    }

    private Object pipe(Pipe p, Object dot) throws TemplateException {
        Object value = NO_FINAL;
        for (Command c : p.commands()) {
            value = command(c, dot, value);
        }
        for (String v : p.vars()) {
            set(v, value, p.assign());
        }
        return value;
    }

    private void set(String name, Object value, boolean assign) {
        if (assign) {
            for (int i = vars.size() - 1; i >= 0; i--) {
                if (vars.get(i)[0].equals(name)) {
                    vars.get(i)[1] = value;
                    return;
                }
            }
        }
        vars.add(new Object[] {name, value});
    }

    private void pop(int size) {
        while (vars.size() > size) {
            vars.remove(vars.size() - 1);
        }
    }

    private Object variable(String name) throws TemplateException {
        for (int i = vars.size() - 1; i >= 0; i--) {
            if (vars.get(i)[0].equals(name)) {
                return vars.get(i)[1];
            }
        }
        throw new TemplateException("undefined variable: " + name);
    }

    private Object command(Command c, Object dot, Object fin) throws TemplateException {
        Arg first = c.args().get(0);
        List<Arg> rest = c.args().subList(1, c.args().size());
        boolean hasArgs = !rest.isEmpty() || fin != NO_FINAL;
        if (first instanceof Node.Function f) {
            return call(f.name(), rest, dot, fin);
        }
        if (first instanceof Node.Nil) {
            throw new TemplateException("nil is not a command");
        }
        if (hasArgs && !(first instanceof Node.Field) && !(first instanceof Node.Chain) && !(first instanceof Node.Variable)) {
            throw new TemplateException("can't give argument to non-function " + describe(first));
        }
        if (!hasArgs) {
            return operand(first, dot, null);
        }
        List<Object> args = new ArrayList<>();
        for (Arg a : rest) {
            args.add(arg(a, dot));
        }
        if (fin != NO_FINAL) {
            args.add(fin);
        }
        return operand(first, dot, args);
    }

    private Object call(String name, List<Arg> argNodes, Object dot, Object fin) throws TemplateException {
        if (Functions.LAZY.contains(name)) {
            int n = argNodes.size() + (fin == NO_FINAL ? 0 : 1);
            if (n == 0) {
                throw new TemplateException("wrong number of args for " + name + ": want at least 1 got 0");
            }
            Object v = null;
            for (int i = 0; i < n; i++) {
                v = i < argNodes.size() ? arg(argNodes.get(i), dot) : fin;
                if (truth(v) == name.equals("or")) {
                    return v;
                }
            }
            return v;
        }
        List<Object> args = new ArrayList<>();
        for (Arg a : argNodes) {
            args.add(arg(a, dot));
        }
        if (fin != NO_FINAL) {
            args.add(fin);
        }
        try {
            SprigDates.Timed timed = Functions.timed(name);
            return timed != null ? timed.call(args, clock) : Functions.get(name).call(args);
        } catch (TemplateException e) {
            throw e.getMessage().startsWith("error calling") ? e
                    : new TemplateException("error calling " + name + ": " + e.getMessage());
        } catch (RuntimeException e) {
            // Go recovers a function's panic into this error; a value beyond what Java's types hold lands here
            throw new TemplateException("error calling " + name + ": " + e.getMessage());
        }
    }

    private Object arg(Arg a, Object dot) throws TemplateException {
        return operand(a, dot, null);
    }

    /** The value of an operand; {@code args}: the arguments that follow it (a method's), or null for none. */
    private Object operand(Arg a, Object dot, List<Object> args) throws TemplateException {
        if (a instanceof Node.Dot) {
            return dot;
        }
        if (a instanceof Node.Nil) {
            return null;
        }
        if (a instanceof Node.Literal l) {
            return l.value();
        }
        if (a instanceof Node.Field f) {
            return fields(dot, "", f.names(), args);
        }
        if (a instanceof Node.Variable v) {
            return fields(variable(v.name()), v.name(), v.fields(), args);
        }
        if (a instanceof Node.Chain ch) {
            return fields(arg(ch.operand(), dot), "(...)", ch.fields(), args);
        }
        if (a instanceof Node.SubPipe sp) {
            int scope = vars.size();
            try {
                Object v = pipe(sp.pipe(), dot);
                return v == NO_FINAL ? null : v;
            } finally {
                pop(scope);
            }
        }
        Node.Function f = (Node.Function) a;
        return call(f.name(), List.of(), dot, NO_FINAL);
    }

    /**
     * Follows {@code names} from {@code v}; maps are the only values with fields here, and every key must exist.
     * Errors name the chain ({@code at <.pci.device.mtu>}) and, for a missing key, the keys there are.
     */
    private static Object fields(Object v, String from, List<String> names, List<Object> args) throws TemplateException {
        if (names.isEmpty() && args != null) {
            throw new TemplateException("can't give argument to non-function " + from);
        }
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String at = "at <" + from + "." + String.join(".", names) + ">: ";
            List<Object> given = i == names.size() - 1 && args != null ? args : List.of();
            if (v instanceof Map<?, ?> m) {
                if (!given.isEmpty()) {
                    throw new TemplateException(at + name + " is not a method but has arguments");
                }
                if (!m.containsKey(name)) {
                    throw new TemplateException(at + "map has no entry for key \"" + name + "\" (it has "
                            + new TreeMap<>(m).keySet() + ")");
                }
                v = m.get(name);
            } else if (v instanceof Receiver r && r.has(name)) {
                try {
                    v = r.call(name, given); // a method, as Go calls one in a field chain
                } catch (TemplateException e) {
                    throw new TemplateException(at + e.getMessage());
                }
            } else if (v == null) {
                throw new TemplateException(at + "nil pointer evaluating ." + name);
            } else {
                throw new TemplateException(at + "can't evaluate field " + name + " in type " + GoFormat.typeName(v));
            }
        }
        return v;
    }

    private static String describe(Arg a) {
        return a instanceof Node.Literal l ? GoFormat.value(l.value()) : a instanceof Node.Dot ? "." : "(pipeline)";
    }

    /** Go's truth: false, 0, nil, and empty strings, lists and maps are false. */
    static boolean truth(Object v) {
        if (v == null || v == NO_FINAL) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        Long integer = Int64.of(v);
        if (integer != null) {
            return integer != 0;
        }
        if (v instanceof Double d) {
            return d != 0;
        }
        if (v instanceof String s) {
            return !s.isEmpty();
        }
        if (v instanceof List<?> l) {
            return !l.isEmpty();
        }
        if (v instanceof Map<?, ?> m) {
            return !m.isEmpty();
        }
        return true;
    }
}
