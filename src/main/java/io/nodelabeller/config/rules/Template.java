package io.nodelabeller.config.rules;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parsed form of a {@code labelsTemplate} / {@code varsTemplate}. NFD uses Go's text/template; we support
 * the subset NFD's own examples and docs use, and reject anything else when the config is read:
 * <ul>
 *   <li>literal text;</li>
 *   <li>{@code {{ range .<domain>.<feature> }} ... {{ end }}} over the elements the rule matched (not nested);</li>
 *   <li>{@code {{ .<field> }}} inside a range: {@code .Name} / {@code .Value} of a flag or attribute element,
 *       or an attribute of an instance ({@code .class}, {@code .vendor});</li>
 *   <li>comments ({@code /* ... *&#47;} inside the braces) and Go's trim markers ({@code "{{- "} and {@code " -}}"}).</li>
 * </ul>
 */
public record Template(String source, List<Part> parts) {

    /** A piece of a template. */
    public sealed interface Part permits Text, Field, Range {
    }

    /** Literal text. */
    public record Text(String text) implements Part {
    }

    /** {@code {{ .name }}} inside a range: a field of the current element. */
    public record Field(String name) implements Part {
    }

    /** {@code {{ range .domain.feature }} body {{ end }}}. */
    public record Range(String feature, List<Part> body) implements Part {
        public Range {
            body = List.copyOf(body);
        }
    }

    public static final String SUBSET = "supported: {{ range .<domain>.<feature> }}...{{ end }}, {{ .<field> }} inside "
            + "a range, {{/* comments */}} and {{- -}} trimming";

    private static final Pattern IDENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern RANGE = Pattern.compile("range\\s+\\.(" + IDENT + ")\\.(" + IDENT + ")");
    private static final Pattern FIELD = Pattern.compile("\\.(" + IDENT + ")");

    public Template {
        parts = List.copyOf(parts);
    }

    /** Parses {@code source}; throws {@link IllegalArgumentException} with a readable message when it is outside the subset. */
    public static Template parse(String source) {
        List<Part> top = new ArrayList<>();
        Deque<List<Part>> open = new ArrayDeque<>();
        Deque<String> openFeature = new ArrayDeque<>();
        List<Part> current = top;
        boolean skipLeadingSpace = false;
        int i = 0;
        while (i < source.length()) {
            int start = source.indexOf("{{", i);
            String text = source.substring(i, start < 0 ? source.length() : start);
            if (skipLeadingSpace) {
                text = stripLeading(text);
            }
            if (start < 0) {
                addText(current, text);
                break;
            }
            int p = start + 2;
            boolean trimBefore = p + 1 < source.length() && source.charAt(p) == '-' && isSpace(source.charAt(p + 1));
            if (trimBefore) {
                p++;
                text = stripTrailing(text);
            }
            addText(current, text);
            int bodyStart = p;
            while (bodyStart < source.length() && isSpace(source.charAt(bodyStart))) {
                bodyStart++;
            }
            int close;
            if (source.startsWith("/*", bodyStart)) {
                int endComment = source.indexOf("*/", bodyStart + 2);
                if (endComment < 0) {
                    throw new IllegalArgumentException("unclosed comment at offset " + start);
                }
                close = source.indexOf("}}", endComment + 2);
            } else {
                close = source.indexOf("}}", p);
            }
            if (close < 0) {
                throw new IllegalArgumentException("unclosed action '{{' at offset " + start);
            }
            String body = source.substring(p, close);
            boolean trimAfter = body.length() >= 2 && body.charAt(body.length() - 1) == '-'
                    && isSpace(body.charAt(body.length() - 2));
            if (trimAfter) {
                body = body.substring(0, body.length() - 1);
            }
            body = body.strip();
            i = close + 2;
            skipLeadingSpace = trimAfter;
            if (body.startsWith("/*") && body.endsWith("*/")) {
                continue;
            }
            Matcher range = RANGE.matcher(body);
            Matcher field = FIELD.matcher(body);
            if (body.equals("end")) {
                if (open.isEmpty()) {
                    throw new IllegalArgumentException("{{ end }} without {{ range }}");
                }
                Range r = new Range(openFeature.pop(), current);
                current = open.pop();
                current.add(r);
            } else if (range.matches()) {
                if (!open.isEmpty()) {
                    throw new IllegalArgumentException("nested {{ " + body + " }} is not supported; " + SUBSET);
                }
                open.push(current);
                openFeature.push(range.group(1) + "." + range.group(2));
                current = new ArrayList<>();
            } else if (field.matches()) {
                if (open.isEmpty()) {
                    throw new IllegalArgumentException("{{ " + body + " }} outside a range is not supported; " + SUBSET);
                }
                current.add(new Field(field.group(1)));
            } else {
                throw new IllegalArgumentException("unsupported action {{ " + body + " }}; " + SUBSET);
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalArgumentException("{{ range ." + openFeature.peek() + " }} has no {{ end }}");
        }
        return new Template(source, top);
    }

    private static void addText(List<Part> parts, String text) {
        if (!text.isEmpty()) {
            parts.add(new Text(text));
        }
    }

    /** Go's template trimming: ASCII space, tab, carriage return and newline. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static String stripLeading(String s) {
        int b = 0;
        while (b < s.length() && isSpace(s.charAt(b))) {
            b++;
        }
        return s.substring(b);
    }

    private static String stripTrailing(String s) {
        int e = s.length();
        while (e > 0 && isSpace(s.charAt(e - 1))) {
            e--;
        }
        return s.substring(0, e);
    }
}
