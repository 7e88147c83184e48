package io.nodelabeller.config.yaml;

import io.nodelabeller.config.yaml.YamlNode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A position in a parsed YAML document, with its key path ({@code sources.pci.deviceClassWhitelist}) and
 * the shared list of problems. Every accessor validates, records a problem naming the file, the key path
 * and what was expected, and falls back to the default so that one pass finds every problem.
 */
public final class YamlNode {
    private final String file;
    private final String path;
    private final JsonNode json;
    private final List<String> problems;
    private final List<String> warnings;

    YamlNode(String file, String path, JsonNode json, List<String> problems, List<String> warnings) {
        this.file = file;
        this.path = path;
        this.json = json == null ? MissingNode.getInstance() : json;
        this.problems = problems;
        this.warnings = warnings;
    }

    /** A root node for {@code json} read from {@code file}, collecting into {@code problems}. */
    public static YamlNode root(String file, JsonNode json, List<String> problems) {
        return new YamlNode(file, "", json, problems, new java.util.ArrayList<>());
    }

    /**
     * Records a warning at this node: a value accepted as NFD accepts it, leniently (the agent logs it and goes on;
     * {@code check-config} reports it as a problem). {@code <file>: <path>: <message>}.
     */
    public void warn(String message) {
        warnings.add(file + ": " + path() + ": " + message);
    }

    /** The warnings recorded anywhere below the root this node belongs to. */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    public String path() {
        return path.isEmpty() ? "(top level)" : path;
    }

    public String file() {
        return file;
    }

    /** True when the key is absent or null. */
    public boolean isMissing() {
        return json.isMissingNode() || json.isNull();
    }

    public JsonNode json() {
        return json;
    }

    /** Records a problem at this node: {@code <file>: <path>: <message>}. */
    public void problem(String message) {
        problems.add(file + ": " + path() + ": " + message);
    }

    /** Checks this node is a mapping whose keys are all in {@code allowed}; each unknown key is a problem. */
    public boolean object(String... allowed) {
        return mapping(true, allowed);
    }

    /**
     * As {@link #object}, but an unknown key is a warning, not a problem: for files read as a Go program that unmarshals
     * them without strictness reads them (the NVIDIA device plugin's config: a key a newer plugin added, or a typo, is
     * ignored there, so it is here, named once).
     */
    public boolean objectIgnoringUnknown(String... allowed) {
        return mapping(false, allowed);
    }

    private boolean mapping(boolean strict, String... allowed) {
        if (isMissing()) {
            return false;
        }
        if (!json.isObject()) {
            problem("expected a mapping, got " + kind(json));
            return false;
        }
        Set<String> known = new LinkedHashSet<>(List.of(allowed));
        Iterator<String> names = json.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (known.contains(name)) {
                continue;
            }
            if (strict) {
                child(name).problem("unknown key (expected one of: " + String.join(", ", known) + ")");
            } else {
                child(name).warn("unknown key, ignored as the NVIDIA device plugin ignores it (known here: "
                        + String.join(", ", known) + ")");
            }
        }
        return true;
    }

    public YamlNode child(String key) {
        JsonNode value = json.isObject() ? json.get(key) : null;
        return new YamlNode(file, path.isEmpty() ? key : path + "." + key, value, problems, warnings);
    }

    public YamlNode element(int index) {
        return new YamlNode(file, path + "[" + index + "]", json.get(index), problems, warnings);
    }

    /** The elements of a sequence; a non-sequence is a problem and yields none. */
    public List<YamlNode> elements() {
        if (isMissing()) {
            return List.of();
        }
        if (!json.isArray()) {
            problem("expected a list, got " + kind(json));
            return List.of();
        }
        List<YamlNode> out = new ArrayList<>();
        for (int i = 0; i < json.size(); i++) {
            out.add(element(i));
        }
        return out;
    }

    /** The entries of a mapping, keyed by field name; a non-mapping is a problem and yields none. */
    public Map<String, YamlNode> entries() {
        Map<String, YamlNode> out = new java.util.LinkedHashMap<>();
        if (isMissing()) {
            return out;
        }
        if (!json.isObject()) {
            problem("expected a mapping, got " + kind(json));
            return out;
        }
        json.fieldNames().forEachRemaining(name -> out.put(name, child(name)));
        return out;
    }

    public String string(String dflt) {
        if (isMissing()) {
            return dflt;
        }
        if (!json.isValueNode() || json.isBinary()) {
            problem("expected a string, got " + kind(json));
            return dflt;
        }
        return json.asText();
    }

    public boolean bool(boolean dflt) {
        if (isMissing()) {
            return dflt;
        }
        if (!json.isBoolean()) {
            problem("expected true or false, got " + kind(json) + " '" + json.asText() + "'");
            return dflt;
        }
        return json.booleanValue();
    }

    public int integer(int dflt, int min, int max) {
        if (isMissing()) {
            return dflt;
        }
        if (!json.isIntegralNumber() || !json.canConvertToInt()) {
            problem("expected an integer, got " + kind(json) + " '" + json.asText() + "'");
            return dflt;
        }
        int v = json.intValue();
        if (v < min || v > max) {
            problem("expected an integer from " + min + " to " + max + ", got " + v);
            return dflt;
        }
        return v;
    }

    /** A list of strings; scalars in the list are taken as text. Missing → {@code dflt}. */
    public List<String> strings(List<String> dflt) {
        if (isMissing()) {
            return dflt;
        }
        if (!json.isArray()) {
            problem("expected a list of strings, got " + kind(json));
            return dflt;
        }
        List<String> out = new ArrayList<>();
        for (YamlNode e : elements()) {
            if (!e.json.isValueNode() || e.json.isNull()) {
                e.problem("expected a string, got " + kind(e.json));
            } else {
                out.add(e.json.asText());
            }
        }
        return List.copyOf(out);
    }

    /** A string validated by {@code parse}, which returns null when the text is fine or the message otherwise. */
    public <T> T parsed(T dflt, String expected, Function<String, T> parse) {
        String text = string(null);
        if (text == null) {
            return dflt;
        }
        try {
            T value = parse.apply(text);
            if (value == null) {
                problem("expected " + expected + ", got '" + text + "'");
                return dflt;
            }
            return value;
        } catch (RuntimeException e) {
            // one line: a PatternSyntaxException's message repeats the pattern and a caret on further lines
            String why = firstLine(e.getMessage());
            problem("expected " + expected + ", got '" + text + "'" + (why.isEmpty() ? "" : " (" + why + ")"));
            return dflt;
        }
    }

    /** The first line of a message, trimmed; "" for null. Problems are reported one line each. */
    static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("").trim();
    }

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    /**
     * A Go-style duration ("60s", "1m30s", "500ms", "0"). A bare number is rejected: NFD would read it as
     * nanoseconds, which is never what an operator meant.
     */
    public Duration duration(Duration dflt) {
        return parsed(dflt, "a duration such as 60s, 1m30s or 500ms", YamlNode::parseDuration);
    }

    /**
     * A duration from {@code min} to {@code max} ({@code range} says so in the problem, e.g. "100ms to 10m"); outside
     * it, a problem and {@code dflt}.
     */
    public Duration duration(Duration dflt, Duration min, Duration max, String range) {
        Duration d = duration(dflt);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            problem("expected a duration from " + range + ", got " + d);
            return dflt;
        }
        return d;
    }

    public static Duration parseDuration(String text) {
        String t = text.trim();
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        boolean negative = t.startsWith("-");
        if (negative || t.startsWith("+")) {
            t = t.substring(1);
        }
        Matcher m = DURATION_PART.matcher(t);
        long nanos = 0;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                return null;
            }
            end = m.end();
            double n = Double.parseDouble(m.group(1));
            double unit = switch (m.group(2)) {
                case "ns" -> 1;
                case "us", "µs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
            nanos += (long) (n * unit);
        }
        if (end == 0 || end != t.length()) {
            return null;
        }
        return Duration.ofNanos(negative ? -nanos : nanos);
    }

    private static String kind(JsonNode n) {
        if (n.isObject()) {
            return "a mapping";
        }
        if (n.isArray()) {
            return "a list";
        }
        if (n.isBoolean()) {
            return "a boolean";
        }
        if (n.isNumber()) {
            return "a number";
        }
        if (n.isNull()) {
            return "null";
        }
        return "a string";
    }
}
