package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.FeatureTerm;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Runs rules in order over a feature snapshot, as NFD's worker does: each rule that matches adds its labels
 * and vars to the attribute feature {@code rule.matched}, which later rules can match on. A rule that cannot
 * be evaluated is skipped with a warning; the others still run.
 */
public final class RuleEngine {

    public static final String BACKREF = "rule.matched";

    /** The labels of one matched rule, with the facts that made it match. */
    public record Output(String rule, Map<String, String> labels, Map<String, String> vars, String evidence) {
    }

    /** Everything a run produced. */
    public record Result(List<Output> outputs, List<String> warnings) {
    }

    private RuleEngine() {
    }

    public static Result run(List<Rule> rules, Features features) {
        SortedMap<String, String> matched = new TreeMap<>();
        Features current = withBackrefs(features, matched);
        List<Output> outputs = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (Rule rule : rules) {
            try {
                Output out = evaluate(rule, current, warnings);
                if (out != null) {
                    outputs.add(out);
                    matched.putAll(out.labels());
                    matched.putAll(out.vars());
                    current = withBackrefs(features, matched);
                }
            } catch (RuleException e) {
                warnings.add("rule '" + rule.name() + "' skipped: " + e.getMessage());
            }
        }
        return new Result(List.copyOf(outputs), List.copyOf(warnings));
    }

    private static Features withBackrefs(Features features, Map<String, String> matched) {
        return features.merge(Features.builder("rule").attributes("matched", matched).build());
    }

    /** One rule: its output when it matches, else null. */
    static Output evaluate(Rule rule, Features f, List<String> warnings) throws RuleException {
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> vars = new LinkedHashMap<>();
        List<String> facts = new ArrayList<>();
        if (!rule.matchAny().isEmpty()) {
            boolean any = false;
            for (List<FeatureTerm> alternative : rule.matchAny()) {
                Match m = matchAll(alternative, f);
                if (!m.matched()) {
                    continue;
                }
                any = true;
                facts.add("matchAny: " + m.facts());
                if (!rule.hasTemplates()) {
                    break;
                }
                TemplateRenderer.expandInto(rule.labelsTemplate(), m.data(), labels);
                TemplateRenderer.expandInto(rule.varsTemplate(), m.data(), vars);
            }
            if (!any) {
                return null;
            }
        }
        if (!rule.matchFeatures().isEmpty()) {
            Match m = matchAll(rule.matchFeatures(), f);
            if (!m.matched()) {
                return null;
            }
            facts.add(m.facts());
            TemplateRenderer.expandInto(rule.labelsTemplate(), m.data(), labels);
            TemplateRenderer.expandInto(rule.varsTemplate(), m.data(), vars);
        }
        if (rule.matchAny().isEmpty() && rule.matchFeatures().isEmpty()) {
            // no matcher: the rule always matches, and (as in NFD's Execute) its templates never run
            facts.add("no matchFeatures (always matches; templates not run)");
        }
        labels.putAll(rule.labels());
        vars.putAll(rule.vars());
        Map<String, String> resolved = new LinkedHashMap<>();
        for (Map.Entry<String, String> l : labels.entrySet()) {
            String value = dynamic(l.getValue(), f);
            if (value == null) {
                warnings.add("rule '" + rule.name() + "': label " + l.getKey() + " left out: " + l.getValue()
                        + " names no attribute");
            } else {
                resolved.put(l.getKey(), value);
            }
        }
        return new Output(rule.name(), Collections.unmodifiableMap(resolved), Collections.unmodifiableMap(vars),
                "rule '" + rule.name() + "': " + String.join("; ", facts));
    }

    /** A label value, with {@code @domain.feature.element} replaced by that attribute; null when it is missing. */
    static String dynamic(String value, Features f) {
        if (!value.startsWith("@")) {
            return value;
        }
        String[] parts = value.substring(1).split("\\.", 3);
        if (parts.length != 3) {
            return null;
        }
        String key = TermMatcher.resolve(f, parts[0] + "." + parts[1]);
        return key == null ? null : f.attribute(key, parts[2]);
    }

    private record Match(boolean matched, Map<String, Map<String, List<Map<String, String>>>> data, String facts) {
    }

    /** Logical AND over terms, stopping at the first that fails (NFD's fail-fast). */
    private static Match matchAll(List<FeatureTerm> terms, Features f) throws RuleException {
        Map<String, Map<String, List<Map<String, String>>>> data = new LinkedHashMap<>();
        List<String> facts = new ArrayList<>();
        for (FeatureTerm term : terms) {
            TermMatcher.Result r = TermMatcher.evaluate(term, f);
            int dot = term.feature().indexOf('.');
            String domain = dot < 0 ? term.feature() : term.feature().substring(0, dot);
            String name = dot < 0 ? "" : term.feature().substring(dot + 1);
            data.computeIfAbsent(domain, k -> new LinkedHashMap<>()).computeIfAbsent(name, k -> new ArrayList<>())
                    .addAll(r.elements());
            if (!r.matched()) {
                return new Match(false, data, "");
            }
            facts.add(describe(term, r, f));
        }
        return new Match(true, data, String.join(", ", facts));
    }

    private static String describe(FeatureTerm term, TermMatcher.Result r, Features f) {
        StringBuilder sb = new StringBuilder(term.feature());
        List<String> exprs = new ArrayList<>();
        if (term.matchExpressions() != null) {
            for (Map.Entry<String, MatchExpression> e : term.matchExpressions().entrySet()) {
                exprs.add(e.getKey() + " " + e.getValue());
            }
        }
        if (term.matchName() != null) {
            exprs.add("name " + term.matchName());
        }
        if (!exprs.isEmpty()) {
            sb.append(" {").append(String.join(", ", exprs)).append('}');
        }
        sb.append(" matched ").append(r.elements().size()).append(r.elements().size() == 1 ? " element" : " elements");
        String key = TermMatcher.resolve(f, term.feature());
        if (key != null) {
            sb.append(Evidence.from(f, key));
        }
        return sb.toString();
    }
}
