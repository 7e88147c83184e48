package io.nodelabeller.config.rules;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import com.fasterxml.jackson.databind.JsonNode;
import io.nodelabeller.config.yaml.YamlNode;
import io.nodelabeller.template.GoTemplate;
import io.nodelabeller.template.TemplateException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads custom rules from a config tree (NFD worker syntax, shorthands included), recording every problem
 * with its exact key path, e.g. {@code sources.custom[2].matchFeatures[0].matchExpressions.vendor.op}.
 */
public final class RuleReader {

    private static final String[] RULE_KEYS = {"name", "labels", "labelsTemplate", "vars", "varsTemplate",
            "matchFeatures", "matchAny"};
    /** The outputs NFD has only in NodeFeatureRule objects; node-labeller applies them in custom rules too. */
    private static final List<String> NFR_ONLY = List.of("annotations", "taints", "extendedResources");
    /** Kubernetes' taint effects (core/v1 TaintEffect). */
    private static final List<String> TAINT_EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    /** NFD's limit on a template's size. */

    /**
     * The two rule languages NFD has, kept apart as NFD keeps them: the worker's config ({@code sources.custom},
     * custom.d; source/custom/api, with its leniencies) and nfd-master's NodeFeatureRule objects
     * (api/nfd/v1alpha1, which the API server's schema checks first).
     */
    public enum Dialect {
        /** nfd-worker's: {@code op: ""} or no op is Any, unknown keys of an expression are ignored (with a warning). */
        WORKER,
        /** nfd-master's NodeFeatureRule objects: every expression has one of the named operators, nothing else. */
        OBJECT
    }

    private RuleReader() {
    }

    /** A list of rules ({@code sources.custom}, or a whole custom.d file). */
    public static List<Rule> readList(YamlNode n) {
        List<Rule> out = new ArrayList<>();
        for (YamlNode e : n.elements()) {
            Rule r = read(e, Dialect.WORKER);
            if (r != null) {
                out.add(r);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The rules of a NodeFeatureRule object's {@code spec.rules} ({@code rules}, named {@code origin} in messages), as
     * nfd-master takes them: a rule with a problem is left out, with one line in {@code skipped} naming it and the
     * problem; the others are kept in order.
     */
    public static List<Rule> readObjectRules(String origin, JsonNode rules, List<String> skipped) {
        List<Rule> out = new ArrayList<>();
        if (rules == null || !rules.isArray()) {
            skipped.add(origin + ": spec.rules is not a list; no rules");
            return out;
        }
        for (int i = 0; i < rules.size(); i++) {
            List<String> problems = new ArrayList<>();
            Rule rule = read(YamlNode.root("spec.rules", rules, problems).element(i), Dialect.OBJECT);
            if (rule == null || !problems.isEmpty()) {
                JsonNode name = rules.get(i).get("name");
                skipped.add(origin + ": rule '" + (name == null ? "spec.rules[" + i + "]" : name.asText()) + "' skipped: "
                        + String.join("; ", problems));
                continue;
            }
            out.add(rule);
        }
        return List.copyOf(out);
    }

    /** One rule of the worker's config, or null when it is unusable (the problems are recorded). */
    public static Rule read(YamlNode n) {
        return read(n, Dialect.WORKER);
    }

    /** One rule in {@code dialect}, or null when it is unusable (the problems are recorded). */
    public static Rule read(YamlNode n, Dialect dialect) {
        if (n.isMissing()) {
            n.problem("expected a rule (a mapping with name, labels, matchFeatures, ...), got null");
            return null;
        }
        String[] allowed = new String[RULE_KEYS.length + NFR_ONLY.size()];
        System.arraycopy(RULE_KEYS, 0, allowed, 0, RULE_KEYS.length);
        for (int i = 0; i < NFR_ONLY.size(); i++) {
            allowed[RULE_KEYS.length + i] = NFR_ONLY.get(i);
        }
        if (!n.object(allowed)) {
            return null;
        }
        // NFD does not require a name; a rule without one is called by its place in the config
        String name = n.child("name").string(null);
        if (name == null || name.isBlank()) {
            name = n.path().startsWith("[") ? n.file() + n.path() : n.path();
        }
        Map<String, String> labels = values(n.child("labels"));
        Map<String, String> vars = values(n.child("vars"));
        GoTemplate labelsTemplate = template(n.child("labelsTemplate"));
        GoTemplate varsTemplate = template(n.child("varsTemplate"));
        List<FeatureTerm> matchFeatures = terms(n.child("matchFeatures"), dialect);
        List<List<FeatureTerm>> matchAny = new ArrayList<>();
        for (YamlNode alt : n.child("matchAny").elements()) {
            if (alt.isMissing()) {
                alt.problem("expected a mapping with matchFeatures, got null");
                continue;
            }
            if (alt.object("matchFeatures")) {
                if (alt.child("matchFeatures").isMissing()) {
                    alt.child("matchFeatures").problem("expected a list of feature terms (required in matchAny)");
                }
                matchAny.add(terms(alt.child("matchFeatures"), dialect));
            }
        }
        return new Rule(name, labels, labelsTemplate, vars, varsTemplate, matchFeatures, matchAny,
                values(n.child("annotations")), taints(n.child("taints")), values(n.child("extendedResources")));
    }

    /** NodeFeatureRule's {@code taints}: a list of {key, value, effect}, checked as the API server checks a taint. */
    private static List<Rule.Taint> taints(YamlNode n) {
        List<Rule.Taint> out = new ArrayList<>();
        if (!n.isMissing() && !n.json().isArray()) {
            n.problem("expected a list of taints ({key, value, effect})");
            return out;
        }
        for (YamlNode t : n.elements()) {
            if (!t.object("key", "value", "effect")) {
                continue;
            }
            String key = t.child("key").string(null);
            String effect = t.child("effect").string(null);
            if (key == null || key.isBlank()) {
                t.child("key").problem("expected a taint key");
            }
            if (effect == null || !TAINT_EFFECTS.contains(effect)) {
                t.child("effect").problem("expected one of " + String.join(", ", TAINT_EFFECTS)
                        + (effect == null ? "" : ", got '" + effect + "'"));
            }
            out.add(new Rule.Taint(key, t.child("value").string(""), effect));
        }
        return out;
    }

    /** A mapping of names to scalar values; {@code @domain.feature.element} values are checked for shape. */
    private static Map<String, String> values(YamlNode n) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, YamlNode> e : n.entries().entrySet()) {
            YamlNode v = e.getValue();
            if (!v.isMissing() && !v.json().isValueNode()) {
                v.problem("expected a string value");
                continue;
            }
            // like NFD (Go's JSON decoding), a null value is the empty string
            String value = v.isMissing() ? "" : v.json().asText();
            if (value.startsWith("@") && value.substring(1).split("\\.", 3).length != 3) {
                v.problem("expected @<domain>.<feature>.<element> (a reference to an attribute), got '" + value + "'");
                continue;
            }
            out.put(e.getKey(), value);
        }
        return out;
    }

    private static GoTemplate template(YamlNode n) {
        String text = n.string(null);
        if (text == null) {
            return null;
        }
        try {
            return GoTemplate.parse(text);
        } catch (TemplateException e) {
            n.problem("expected a Go template: " + e.getMessage());
            return null;
        }
    }

    private static List<FeatureTerm> terms(YamlNode n, Dialect dialect) {
        List<FeatureTerm> out = new ArrayList<>();
        for (YamlNode t : n.elements()) {
            FeatureTerm term = term(t, dialect);
            if (term != null) {
                out.add(term);
            }
        }
        return out;
    }

    private static FeatureTerm term(YamlNode n, Dialect dialect) {
        if (n.isMissing()) {
            n.problem("expected a feature term (feature, matchExpressions, matchName), got null");
            return null;
        }
        if (!n.object("feature", "matchExpressions", "matchName")) {
            return null;
        }
        String feature = n.child("feature").string(null);
        if (feature == null || !feature.matches("[^.\\s]+\\.[^\\s]+")) {
            n.child("feature").problem("expected a feature name <domain>.<feature> such as pci.device, got "
                    + (feature == null ? "nothing" : "'" + feature + "'"));
        }
        Map<String, MatchExpression> expressions = null;
        YamlNode me = n.child("matchExpressions");
        if (!me.json().isMissingNode()) {
            expressions = new LinkedHashMap<>();
            if (me.json().isArray()) {
                for (YamlNode item : me.elements()) {
                    String text = item.isMissing() || !item.json().isTextual() ? null : item.json().asText();
                    if (text == null || text.isEmpty() || text.startsWith("=")) {
                        item.problem("expected a name or name=value");
                        continue;
                    }
                    int eq = text.indexOf('=');
                    expressions.put(eq < 0 ? text : text.substring(0, eq),
                            eq < 0 ? MatchExpression.of(Op.Exists) : MatchExpression.of(Op.In, text.substring(eq + 1)));
                }
            } else if (me.json().isObject()) {
                for (Map.Entry<String, YamlNode> e : me.entries().entrySet()) {
                    MatchExpression x = expression(e.getValue(), dialect);
                    if (x != null) {
                        expressions.put(e.getKey(), x);
                    }
                }
            } else {
                me.problem("expected a mapping of element name to expression, or a list of names");
            }
        }
        MatchExpression matchName = n.child("matchName").json().isMissingNode() ? null
                : expression(n.child("matchName"), dialect);
        return new FeatureTerm(feature == null ? "" : feature, expressions, matchName);
    }

    /**
     * An expression in any of NFD's forms: {@code null} (Exists), a scalar or list (In), or {@code {op, value}}
     * where value is a scalar or a list. A scalar number or boolean is the value NFD makes of it (Go's
     * {@code strconv.FormatFloat(v, 'f', -1, 64)}, {@code FormatBool}); in a list only strings are values, as NFD
     * refuses anything else there (source/custom/api/expression.go, {@code UnmarshalJSON}).
     */
    static MatchExpression expression(YamlNode n, Dialect dialect) {
        JsonNode j = n.json();
        if (n.isMissing()) {
            return MatchExpression.of(Op.Exists);
        }
        if (j.isValueNode()) {
            return MatchExpression.of(Op.In, scalar(j));
        }
        if (j.isArray()) {
            List<String> values = scalars(n);
            return values == null ? null : check(Op.In, values, n);
        }
        if (dialect == Dialect.WORKER) {
            // what is left is a mapping (a scalar, a list and null are handled above); nfd-worker decodes {op, value} into a struct: other keys (a `type:` of nfd-master's objects) are dropped
            j.fieldNames().forEachRemaining(k -> {
                if (!k.equals("op") && !k.equals("value")) {
                    n.child(k).warn("unknown key ignored, as NFD's worker ignores it (an expression has op and value)");
                }
            });
        } else if (!n.object("op", "value", "type")) {
            return null;
        }
        YamlNode opNode = n.child("op");
        String opText = opNode.isMissing() ? null : opNode.string(null);
        Op op = null;
        if (dialect == Dialect.WORKER && (opNode.isMissing() || "".equals(opText))) {
            op = Op.Any; // the worker's MatchAny: no op, or op ""
        } else if (opText == null) {
            opNode.problem("expected an operator (one of " + Op.names() + ")");
        } else {
            boolean objects = dialect == Dialect.OBJECT;
            try {
                op = Op.valueOf(opText);
                if (op == Op.Any || (op.objectsOnly() && !objects)) {
                    throw new IllegalArgumentException(opText);
                }
            } catch (IllegalArgumentException e) {
                op = null;
                opNode.problem("expected one of " + Op.names(objects) + ", got '" + opText + "'"
                        + (objects || !List.of("Ge", "Le", "GeLe").contains(opText) ? ""
                        : " (Ge, Le and GeLe are nfd-master's, for NodeFeatureRule objects: NFD's worker config has none)"));
            }
        }
        YamlNode valueNode = n.child("value");
        List<String> values;
        if (valueNode.isMissing()) {
            values = List.of();
        } else if (valueNode.json().isValueNode()) {
            values = List.of(scalar(valueNode.json()));
        } else {
            values = scalars(valueNode);
        }
        String type = "";
        if (dialect == Dialect.OBJECT && !n.child("type").isMissing()) {
            type = n.child("type").string(null); // a mapping or a list is a problem there
            if (type == null) {
                return null;
            }
        }
        if (op == null || values == null) {
            return null;
        }
        if (dialect == Dialect.OBJECT) {
            // nfd-master checks an expression when it evaluates it on an element that is there (expression.go,
            // evaluateMatchExpression): one that is wrong for its operator does nothing until then (Expressions)
            return new MatchExpression(op, values, type);
        }
        return check(op, values, valueNode.isMissing() ? n : valueNode);
    }

    /** A scalar as NFD's worker reads it: numbers through float64, as Go's FormatFloat(v, 'f', -1, 64) writes them. */
    static String scalar(JsonNode j) {
        if (j.isNumber()) {
            double d = j.asDouble();
            if (Double.isInfinite(d) || Double.isNaN(d)) {
                return j.asText();
            }
            if (d == 0 && 1 / d < 0) {
                return "-0";
            }
            return new java.math.BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
        }
        return j.asText();
    }

    private static List<String> scalars(YamlNode n) {
        List<String> out = new ArrayList<>();
        boolean ok = true;
        if (!n.json().isArray()) {
            n.problem("expected a string or a list of strings");
            return null;
        }
        for (YamlNode e : n.elements()) {
            if (e.isMissing() || !e.json().isTextual()) {
                e.problem(e.isMissing() || !e.json().isValueNode() ? "expected a string"
                        : "expected a string, got " + e.json().asText() + " (NFD refuses an unquoted number or boolean"
                        + " in a list: quote it)");
                ok = false;
            } else {
                out.add(e.json().asText());
            }
        }
        return ok ? out : null;
    }

    /** NFD's per-operator value checks, done when the config is read rather than on every evaluation. */
    private static MatchExpression check(Op op, List<String> values, YamlNode at) {
        String problem = switch (op) {
            case In, NotIn -> values.isEmpty() ? "expected at least one value for op " + op : null;
            case InRegexp -> values.isEmpty() ? "expected at least one regular expression for op InRegexp" : badRegexp(values);
            case Exists, DoesNotExist, IsTrue, IsFalse -> values.isEmpty() ? null
                    : "expected no value for op " + op + ", got " + values;
            case Any -> values.isEmpty() ? null : "expected no value for op \"\" (any), got " + values;
            case Gt, Lt -> values.size() != 1 || !allIntegers(values)
                    ? "expected exactly one integer value for op " + op + ", got " + values : null;
            case Ge, Le, GeLe -> "op " + op + " is nfd-master's (NodeFeatureRule objects)";
            case GtLt -> values.size() != 2 || !allIntegers(values)
                    ? "expected exactly two integer values for op GtLt, got " + values
                    : Long.parseLong(values.get(0)) >= Long.parseLong(values.get(1))
                    ? "expected the first value to be less than the second for op GtLt, got " + values : null;
        };
        if (problem != null) {
            at.problem(problem);
            return null;
        }
        return new MatchExpression(op, values);
    }

    private static String badRegexp(List<String> values) {
        for (String v : values) {
            try {
                Pattern.compile(v); // Go's regexp (RE2), as NFD: no lookaround, no backreferences
            } catch (PatternSyntaxException e) {
                // RE2/J words its errors as Go's regexp package does, e.g. "error parsing regexp: missing closing ]: `[`"
                return "expected valid regular expressions (Go RE2 syntax) for op InRegexp, '" + v + "' is not: "
                        + e.getMessage();
            }
        }
        return null;
    }

    /** Go's strconv.Atoi: optional sign, decimal digits, 64-bit range. */
    static boolean isInteger(String s) {
        try {
            Long.parseLong(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean allIntegers(List<String> values) {
        return values.stream().allMatch(RuleReader::isInteger);
    }
}
