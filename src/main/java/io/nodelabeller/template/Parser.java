package io.nodelabeller.template;

import io.nodelabeller.template.Lexer.Token;
import io.nodelabeller.template.Lexer.Type;
import io.nodelabeller.template.Node.Arg;
import io.nodelabeller.template.Node.Command;
import io.nodelabeller.template.Node.Control;
import io.nodelabeller.template.Node.Pipe;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Builds the parse tree from tokens with the checks Go's text/template parser makes when a template is parsed:
 * unknown functions and undeclared variables, {@code end}/{@code else} without an opening action,
 * {@code break}/{@code continue} outside {@code range}, a constant where a pipeline stage needs a function.
 * Named templates as Go has them: {@code define} at the top level only, {@code template} and {@code block}
 * anywhere, each definition with its own variables ({@code $} alone); a name defined twice with a body both times is
 * an error, an empty redefinition is ignored (text/template/parse, {@code Tree.add}).
 */
final class Parser {

    private final List<Token> tokens;
    private final Set<String> functions;
    private List<String> vars = new ArrayList<>(List.of("$"));
    private int pos;
    private int rangeDepth;
    private final java.util.Map<String, List<Node>> defined = new java.util.LinkedHashMap<>();

    /** A template: its own nodes, and the templates it defines by name. */
    record Parsed(List<Node> root, java.util.Map<String, List<Node>> templates) {
    }

    private Parser(List<Token> tokens, Set<String> functions) {
        this.tokens = tokens;
        this.functions = functions;
    }

    static Parsed parse(String source, Set<String> functions) throws TemplateException {
        Parser p = new Parser(Lexer.lex(source), functions);
        List<Node> nodes = new ArrayList<>();
        String stop = p.list(nodes, true);
        if (stop != null) {
            throw Lexer.error(p.tokens.get(p.pos - 1).offset(), "unexpected {{" + stop + "}}");
        }
        return new Parsed(List.copyOf(nodes), java.util.Collections.unmodifiableMap(p.defined));
    }

    /**
     * Parses nodes into {@code out} until EOF (returns null) or an {@code end}/{@code else} action (returns it);
     * {@code top}: the template's own level, where {@code define} may stand.
     */
    private String list(List<Node> out) throws TemplateException {
        return list(out, false);
    }

    private String list(List<Node> out, boolean top) throws TemplateException {
        while (true) {
            Token t = next();
            switch (t.type()) {
                case EOF -> {
                    return null;
                }
                case TEXT -> out.add(new Node.Text(t.text()));
                case LEFT -> {
                    Token k = peek();
                    if (k.type() == Type.IDENT && (k.text().equals("end") || k.text().equals("else"))) {
                        next();
                        return k.text();
                    }
                    if (top && k.type() == Type.IDENT && k.text().equals("define")) {
                        next();
                        define(k);
                        continue;
                    }
                    out.add(action(t));
                }
                default -> throw Lexer.error(t.offset(), "unexpected " + t);
            }
        }
    }

    private Node action(Token left) throws TemplateException {
        Token k = peek();
        if (k.type() == Type.IDENT) {
            switch (k.text()) {
                case "if" -> {
                    next();
                    return control(Control.Kind.IF, k);
                }
                case "with" -> {
                    next();
                    return control(Control.Kind.WITH, k);
                }
                case "range" -> {
                    next();
                    return control(Control.Kind.RANGE, k);
                }
                case "break", "continue" -> {
                    next();
                    if (rangeDepth == 0) {
                        throw Lexer.error(k.offset(), "{{" + k.text() + "}} outside {{range}}");
                    }
                    expect(Type.RIGHT, k.text());
                    return new Node.LoopJump(k.text().equals("break"));
                }
                case "template" -> {
                    next();
                    String name = templateName(k);
                    Pipe pipe = peek().type() == Type.RIGHT ? null : pipe("template", Type.RIGHT, false);
                    if (pipe == null) {
                        expect(Type.RIGHT, "template");
                    }
                    return new Node.Call(k.offset(), name, pipe);
                }
                case "block" -> {
                    next();
                    String name = templateName(k);
                    Pipe pipe = pipe("block", Type.RIGHT, false);
                    body(k, name);
                    return new Node.Call(k.offset(), name, pipe);
                }
                case "define" -> throw Lexer.error(k.offset(), "unexpected <define> in command");
                default -> {
                }
            }
        }
        return new Node.Action(left.offset(), pipe("command", Type.RIGHT, false));
    }

    /** {@code {{define "name"}} body {{end}}}. */
    private void define(Token keyword) throws TemplateException {
        String name = templateName(keyword);
        expect(Type.RIGHT, "define clause");
        body(keyword, name);
    }

    /** A named template's body up to its {@code end}, with its own variables, recorded under {@code name}. */
    private void body(Token keyword, String name) throws TemplateException {
        List<String> outer = vars;
        int outerRange = rangeDepth;
        vars = new ArrayList<>(List.of("$"));
        rangeDepth = 0;
        List<Node> body = new ArrayList<>();
        String stop;
        try {
            stop = list(body);
        } finally {
            vars = outer;
            rangeDepth = outerRange;
        }
        if (!"end".equals(stop)) {
            throw Lexer.error(keyword.offset(), stop == null ? "unexpected EOF" : "unexpected {{else}}");
        }
        expect(Type.RIGHT, "end");
        List<Node> had = defined.get(name);
        if (had == null || empty(had)) {
            defined.put(name, List.copyOf(body));
        } else if (!empty(body)) {
            throw Lexer.error(keyword.offset(), "template: multiple definition of template \"" + name + "\"");
        }
    }

    /** text/template/parse's IsEmptyTree: nothing but white space. */
    private static boolean empty(List<Node> nodes) {
        return nodes.stream().allMatch(n -> n instanceof Node.Text t && t.text().isBlank());
    }

    /** The quoted name after define, template or block. */
    private String templateName(Token keyword) throws TemplateException {
        Token t = next();
        if (t.type() != Type.LITERAL || !(t.value() instanceof String s) || !(t.text().startsWith("\"") || t.text().startsWith("`"))) {
            throw Lexer.error(t.offset(), "unexpected \"" + t + "\" in " + keyword.text() + " clause");
        }
        return s;
    }

    /** if/with/range: pipeline, body, optional else (or else-if / else-with chain), end. */
    private Node control(Control.Kind kind, Token keyword) throws TemplateException {
        int scope = vars.size();
        Pipe pipe = pipe(keyword.text(), Type.RIGHT, kind == Control.Kind.RANGE);
        if (kind == Control.Kind.RANGE) {
            rangeDepth++;
        }
        List<Node> body = new ArrayList<>();
        String stop = list(body);
        if (kind == Control.Kind.RANGE) {
            rangeDepth--;
        }
        List<Node> elseBody = new ArrayList<>();
        if (stop == null) {
            throw Lexer.error(keyword.offset(), "unexpected EOF: {{" + keyword.text() + "}} has no {{end}}");
        }
        if (stop.equals("else")) {
            Token k = peek();
            if (kind != Control.Kind.RANGE && k.type() == Type.IDENT
                    && (k.text().equals("if") || k.text().equals("with"))) {
                // {{else if ...}} / {{else with ...}}: a nested control that shares this one's {{end}}
                next();
                elseBody.add(control(k.text().equals("if") ? Control.Kind.IF : Control.Kind.WITH, k));
            } else {
                expect(Type.RIGHT, "else");
                String end = list(elseBody);
                if (!"end".equals(end)) {
                    throw Lexer.error(keyword.offset(), end == null
                            ? "unexpected EOF: {{" + keyword.text() + "}} has no {{end}}" : "expected {{end}}, found {{else}}");
                }
                expect(Type.RIGHT, "end");
            }
        } else {
            expect(Type.RIGHT, "end");
        }
        while (vars.size() > scope) {
            vars.remove(vars.size() - 1);
        }
        return new Control(kind, keyword.offset(), pipe, List.copyOf(body), List.copyOf(elseBody));
    }

    /** A pipeline, with its variable declaration, up to {@code end} (the right delimiter or ')'). */
    private Pipe pipe(String context, Type end, boolean twoVars) throws TemplateException {
        List<String> declared = new ArrayList<>();
        boolean assign = false;
        int save = pos;
        if (peek().type() == Type.VARIABLE) {
            Token v = next();
            Token after = peek();
            if (after.type() == Type.DECLARE || after.type() == Type.ASSIGN) {
                next();
                declared.add(v.text());
                assign = after.type() == Type.ASSIGN;
            } else if (after.type() == Type.COMMA && twoVars) {
                next();
                Token v2 = next();
                if (v2.type() != Type.VARIABLE) {
                    throw Lexer.error(v2.offset(), "range can only initialize variables");
                }
                Token op = next();
                if (op.type() != Type.DECLARE && op.type() != Type.ASSIGN) {
                    throw Lexer.error(op.offset(), "expected := or = after " + v.text() + ", " + v2.text());
                }
                declared.add(v.text());
                declared.add(v2.text());
                assign = op.type() == Type.ASSIGN;
            } else {
                pos = save;
            }
        }
        for (String d : declared) {
            if (assign && !vars.contains(d)) {
                throw Lexer.error(tokens.get(save).offset(), "undefined variable \"" + d + "\"");
            }
        }
        if (!assign) {
            vars.addAll(declared);
        }
        List<Command> commands = new ArrayList<>();
        while (true) {
            if (peek().type() == end) {
                next();
                break;
            }
            commands.add(command(end));
            if (peek().type() == Type.PIPE) {
                next();
            }
        }
        if (commands.isEmpty()) {
            throw Lexer.error(tokens.get(save).offset(), "missing value for " + context);
        }
        for (int i = 1; i < commands.size(); i++) {
            Arg first = commands.get(i).args().get(0);
            if (first instanceof Node.Literal || first instanceof Node.Dot || first instanceof Node.Nil) {
                throw Lexer.error(tokens.get(save).offset(), "non executable command in pipeline stage " + (i + 1));
            }
        }
        return new Pipe(List.copyOf(declared), assign, List.copyOf(commands));
    }

    private Command command(Type end) throws TemplateException {
        List<Arg> args = new ArrayList<>();
        while (true) {
            Token t = peek();
            if (t.type() == end || t.type() == Type.PIPE) {
                break;
            }
            if (!args.isEmpty() && !t.spaceBefore()) {
                throw Lexer.error(t.offset(), "missing space before " + t);
            }
            args.add(operand());
        }
        if (args.isEmpty()) {
            throw Lexer.error(peek().offset(), "empty command");
        }
        return new Command(List.copyOf(args));
    }

    /** A term followed by fields written right after it: {@code (x).a.b}, {@code $x.a}. */
    private Arg operand() throws TemplateException {
        Arg term = term();
        List<String> fields = new ArrayList<>();
        while (peek().type() == Type.FIELD && !peek().spaceBefore()) {
            fields.add(next().text());
        }
        if (fields.isEmpty()) {
            return term;
        }
        if (term instanceof Node.Field f) {
            List<String> all = new ArrayList<>(f.names());
            all.addAll(fields);
            return new Node.Field(List.copyOf(all));
        }
        if (term instanceof Node.Variable v) {
            List<String> all = new ArrayList<>(v.fields());
            all.addAll(fields);
            return new Node.Variable(v.name(), List.copyOf(all));
        }
        if (term instanceof Node.Literal || term instanceof Node.Nil || term instanceof Node.Dot) {
            throw Lexer.error(peek().offset(), "unexpected . after term");
        }
        return new Node.Chain(term, List.copyOf(fields));
    }

    private Arg term() throws TemplateException {
        Token t = next();
        switch (t.type()) {
            case IDENT -> {
                if (t.text().equals("nil")) {
                    return new Node.Nil();
                }
                if (!functions.contains(t.text())) {
                    throw Lexer.error(t.offset(), "function \"" + t.text() + "\" not defined");
                }
                return new Node.Function(t.text());
            }
            case DOT -> {
                return new Node.Dot();
            }
            case FIELD -> {
                return new Node.Field(List.of(t.text()));
            }
            case VARIABLE -> {
                if (!vars.contains(t.text())) {
                    throw Lexer.error(t.offset(), "undefined variable \"" + t.text() + "\"");
                }
                return new Node.Variable(t.text(), List.of());
            }
            case LITERAL -> {
                return new Node.Literal(t.value());
            }
            case LPAREN -> {
                return new Node.SubPipe(pipe("parenthesized pipeline", Type.RPAREN, false));
            }
            default -> throw Lexer.error(t.offset(), "unexpected " + t + " in operand");
        }
    }

    private void expect(Type type, String context) throws TemplateException {
        Token t = next();
        if (t.type() != type) {
            throw Lexer.error(t.offset(), "unexpected " + t + " in " + context);
        }
    }

    private Token next() {
        return tokens.get(Math.min(pos++, tokens.size() - 1));
    }

    private Token peek() {
        return tokens.get(Math.min(pos, tokens.size() - 1));
    }
}
