package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.FeatureTerm;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates one {@code matchFeatures} term as NFD does: flags and attributes of the feature are one union
 * (an expression holds when it holds on either, DoesNotExist must hold on both); instances match when one
 * instance satisfies every expression; {@code matchName} then runs on element names. The matched elements
 * (flag {@code {Name}}, attribute {@code {Name, Value}}, instance attribute maps) feed the templates.
 */
final class TermMatcher {

    static final String NAME = "Name";
    static final String VALUE = "Value";

    /** The outcome of a term: whether it matched, and the elements it matched. */
    record Result(boolean matched, List<Map<String, String>> elements) {
    }

    private TermMatcher() {
    }

    /** The feature key as stored, found case-insensitively as NFD does; null when no source produced it. */
    static String resolve(Features f, String feature) {
        String lower = feature.toLowerCase(Locale.ROOT);
        for (String candidate : List.of(feature, lower)) {
            if (f.allFlags().containsKey(candidate) || f.allAttributes().containsKey(candidate)
                    || f.allInstances().containsKey(candidate)) {
                return candidate;
            }
        }
        for (Set<String> keys : List.of(f.allFlags().keySet(), f.allAttributes().keySet(), f.allInstances().keySet())) {
            for (String k : keys) {
                if (k.equalsIgnoreCase(feature)) {
                    return k;
                }
            }
        }
        return null;
    }

    static Result evaluate(FeatureTerm term, Features f) throws RuleException {
        String key = resolve(f, term.feature());
        if (key == null) {
            return new Result(false, List.of());
        }
        Set<String> flags = f.allFlags().get(key);
        Map<String, String> attrs = f.allAttributes().get(key);
        List<Instance> instances = f.allInstances().getOrDefault(key, List.of());
        List<Map<String, String>> elements = new ArrayList<>();
        boolean matched = true;
        if (term.matchExpressions() != null) {
            matched = flags != null || attrs != null;
            for (Map.Entry<String, MatchExpression> e : term.matchExpressions().entrySet()) {
                String name = e.getKey();
                MatchExpression x = e.getValue();
                boolean onFlag = false;
                boolean onAttr = false;
                boolean failed = false;
                if (flags != null) {
                    onFlag = Expressions.matchesFlag(x, flags.contains(name));
                    if (onFlag) {
                        elements.add(Map.of(NAME, name));
                    } else if (x.op() == Op.DoesNotExist) {
                        failed = true;
                    }
                }
                if (!failed && attrs != null) {
                    String value = attrs.get(name);
                    onAttr = Expressions.matches(x, value);
                    if (onAttr) {
                        elements.add(Map.of(NAME, name, VALUE, value == null ? "" : value));
                    } else if (x.op() == Op.DoesNotExist) {
                        failed = true;
                    }
                }
                if (failed || (!onFlag && !onAttr)) {
                    matched = false;
                    elements.clear();
                    break;
                }
            }
            elements.sort(Comparator.comparing(m -> m.get(NAME)));
            List<Map<String, String>> matchedInstances = new ArrayList<>();
            for (Instance inst : instances) {
                if (allHold(term.matchExpressions(), inst)) {
                    matchedInstances.add(inst.attributes());
                }
            }
            matched = matched || !matchedInstances.isEmpty();
            elements.addAll(matchedInstances);
        }
        if (matched && term.matchName() != null) {
            List<Map<String, String>> named = names(term.matchName(), flags, attrs, instances);
            matched = !named.isEmpty();
            elements.addAll(named);
        }
        return new Result(matched, List.copyOf(elements));
    }

    private static boolean allHold(Map<String, MatchExpression> expressions, Instance inst) throws RuleException {
        for (Map.Entry<String, MatchExpression> e : expressions.entrySet()) {
            if (!Expressions.matches(e.getValue(), inst.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** {@code matchName}: flag names, attribute names, and instances having a matching attribute name. */
    private static List<Map<String, String>> names(MatchExpression x, Set<String> flags, Map<String, String> attrs,
                                                   List<Instance> instances) throws RuleException {
        List<Map<String, String>> out = new ArrayList<>();
        if (flags != null) {
            for (String name : flags) {
                if (Expressions.matches(x, name)) {
                    out.add(Map.of(NAME, name));
                }
            }
        }
        if (attrs != null) {
            for (Map.Entry<String, String> a : attrs.entrySet()) {
                if (Expressions.matches(x, a.getKey())) {
                    out.add(Map.of(NAME, a.getKey(), VALUE, a.getValue()));
                }
            }
        }
        out.sort(Comparator.comparing(m -> m.get(NAME)));
        for (Instance inst : instances) {
            for (String name : inst.attributes().keySet()) {
                if (Expressions.matches(x, name)) {
                    out.add(inst.attributes());
                    break;
                }
            }
        }
        return out;
    }
}
