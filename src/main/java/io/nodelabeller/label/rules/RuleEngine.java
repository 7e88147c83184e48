package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.FeatureTerm;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet.Kind;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Runs rules in order over a feature snapshot, as NFD does: each rule that matches adds its labels and vars to the
 * attribute feature {@code rule.matched}, which later rules can match on. A rule that cannot be evaluated is skipped
 * with a warning; the others still run.
 *
 * <p>Two flavours of {@code @domain.feature.element} values, as in NFD: {@link #run} (nfd-worker's custom rules)
 * resolves a label's reference when its rule matches; {@link #runAsMaster} (nfd-master's NodeFeatureRules,
 * {@code processNodeFeatureRule} then {@code filterFeatureLabels}) feeds the reference itself back as
 * {@code rule.matched} and resolves labels and extended resources once all rules ran, against the features with
 * every rule's output.
 */
public final class RuleEngine {

    public static final String BACKREF = "rule.matched";

    /**
     * The outputs of one matched rule, with the facts that made it match. {@code index}: the rule's place in the
     * list run; {@code taints}: {@code key:effect} → value; {@code inputs}: the sources its outputs are computed from
     * ({@link #inputs}).
     */
    public record Output(int index, String rule, Map<String, String> labels, Map<String, String> vars,
                         Map<String, String> annotations, Map<String, String> taints,
                         Map<String, String> extendedResources, String evidence, Set<String> inputs) {
        public Output {
            inputs = Set.copyOf(inputs);
        }

        Output withInputs(Set<String> all) {
            return new Output(index, rule, labels, vars, annotations, taints, extendedResources, evidence, all);
        }
    }

    /** Everything a run produced. */
    public record Result(List<Output> outputs, List<String> warnings) {
    }

    private RuleEngine() {
    }

    /** nfd-worker's custom rules: references resolved as each rule matches. */
    public static Result run(List<Rule> rules, Features features) {
        return run(rules, features, true);
    }

    /** nfd-master's NodeFeatureRules: references resolved after the last rule, against every rule's output. */
    public static Result runAsMaster(List<Rule> rules, Features features) {
        return run(rules, features, false);
    }

    private static Result run(List<Rule> rules, Features features, boolean resolveEach) {
        List<Set<String>> inputs = inputs(rules, resolveEach);
        SortedMap<String, String> matched = new TreeMap<>();
        Features current = withBackrefs(features, matched);
        List<Output> outputs = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            try {
                Output out = evaluate(i, rule, current, resolveEach ? warnings : null);
                if (out != null) {
                    out = out.withInputs(inputs.get(i));
                    outputs.add(out);
                    matched.putAll(out.labels());
                    matched.putAll(out.vars());
                    current = withBackrefs(features, matched);
                }
            } catch (RuleException e) {
                warnings.add("rule '" + rule.name() + "' skipped: " + e.getMessage());
            }
        }
        if (!resolveEach) {
            List<Output> resolved = new ArrayList<>();
            for (Output o : outputs) {
                resolved.add(new Output(o.index(), o.rule(), resolve(o.rule(), "label", o.labels(), current, warnings),
                        o.vars(), o.annotations(), o.taints(),
                        resolve(o.rule(), "extended resource", o.extendedResources(), current, warnings), o.evidence(),
                        o.inputs()));
            }
            outputs = resolved;
        }
        return new Result(List.copyOf(outputs), List.copyOf(warnings));
    }

    /**
     * The sources each rule's outputs are computed from, by the rule's place in {@code rules}, as NFD evaluates them:
     * the domain of every feature its {@code matchFeatures} and {@code matchAny} terms name ({@code pci.device} →
     * pci) and of every {@code @domain.feature.element} its label and extended resource values copy; a term on
     * {@code rule.matched} (or a copy from it) adds the inputs of every rule whose results it can see — the rules
     * before it, or with {@code resolveEach} false every rule for a copy, which nfd-master resolves after the last
     * rule. A rule with no match terms and no copies depends on nothing. Whether a rule matches changes nothing here:
     * a rule that did not match because its source failed is exactly what a later rule may have missed.
     */
    static List<Set<String>> inputs(List<Rule> rules, boolean resolveEach) {
        List<Set<String>> out = new ArrayList<>();
        List<Boolean> copiesBackrefs = new ArrayList<>();
        Set<String> earlier = new TreeSet<>();
        for (Rule rule : rules) {
            Set<String> in = new TreeSet<>();
            List<String> features = new ArrayList<>();
            rule.matchAny().forEach(alternative -> alternative.forEach(t -> features.add(t.feature())));
            rule.matchFeatures().forEach(t -> features.add(t.feature()));
            boolean copies = false;
            for (Map<String, String> values : List.of(rule.labels(), rule.extendedResources())) {
                for (String v : values.values()) {
                    if (v.startsWith("@")) {
                        features.add(v.substring(1));
                        copies |= domain(v.substring(1)).equals(BACKREF_DOMAIN);
                    }
                }
            }
            for (String feature : features) {
                String domain = domain(feature);
                if (domain.equals(BACKREF_DOMAIN)) {
                    in.addAll(earlier);
                } else {
                    in.add(domain);
                }
            }
            out.add(in);
            copiesBackrefs.add(copies);
            earlier.addAll(in);
        }
        if (!resolveEach) {
            for (int i = 0; i < out.size(); i++) {
                if (copiesBackrefs.get(i)) {
                    out.get(i).addAll(earlier);
                }
            }
        }
        return out.stream().map(Set::copyOf).toList();
    }

    private static final String BACKREF_DOMAIN = BACKREF.substring(0, BACKREF.indexOf('.'));

    /** The part of a feature name before its first dot, in lower case (NFD finds features case-insensitively). */
    private static String domain(String feature) {
        int dot = feature.indexOf('.');
        return (dot < 0 ? feature : feature.substring(0, dot)).toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The outputs of a run as a labeler's: every kind, each tagged {@code source}, its rule's evidence and its rule's
     * {@link Output#inputs()}, plus {@code alsoInputs} (what the rules themselves come from, when that can be unknown).
     */
    static Labeler.Produced produced(Result result, String source, Function<Output, String> evidence,
                                     Set<String> alsoInputs, Set<String> uncertain) {
        List<Label> labels = new ArrayList<>();
        Map<Kind, List<Label>> others = new EnumMap<>(Kind.class);
        for (Output o : result.outputs()) {
            String why = evidence.apply(o);
            Set<String> inputs = new TreeSet<>(o.inputs());
            inputs.addAll(alsoInputs);
            o.labels().forEach((k, v) -> labels.add(new Label(k, v, source, why, inputs)));
            Map<Kind, Map<String, String>> byKind = Map.of(Kind.ANNOTATION, o.annotations(), Kind.TAINT, o.taints(),
                    Kind.EXTENDED_RESOURCE, o.extendedResources());
            byKind.forEach((kind, values) -> values.forEach((k, v) -> others.computeIfAbsent(kind, x -> new ArrayList<>())
                    .add(new Label(k, v, source, why, inputs))));
        }
        return new Labeler.Produced(labels, others, uncertain);
    }

    private static Features withBackrefs(Features features, Map<String, String> matched) {
        return features.merge(Features.builder("rule").attributes("matched", matched).build());
    }

    /**
     * One rule: its output when it matches, else null. With {@code warnings} the label and extended resource values
     * that reference an attribute are resolved now (warnings name those left out); without, they are left as written.
     */
    static Output evaluate(int index, Rule rule, Features f, List<String> warnings) throws RuleException {
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
        Map<String, String> taints = new LinkedHashMap<>();
        for (Rule.Taint t : rule.taints()) {
            taints.put(t.key() + ":" + t.effect(), t.value());
        }
        Map<String, String> ers = rule.extendedResources();
        if (warnings != null) {
            labels = resolve(rule.name(), "label", labels, f, warnings);
            ers = resolve(rule.name(), "extended resource", ers, f, warnings);
        }
        return new Output(index, rule.name(), Collections.unmodifiableMap(labels), Collections.unmodifiableMap(vars),
                rule.annotations(), Collections.unmodifiableMap(taints), ers,
                "rule '" + rule.name() + "': " + String.join("; ", facts), Set.of());
    }

    /** {@code values} with every {@code @domain.feature.element} replaced; one that names no attribute is left out. */
    private static Map<String, String> resolve(String rule, String what, Map<String, String> values, Features f,
                                               List<String> warnings) {
        Map<String, String> resolved = new LinkedHashMap<>();
        for (Map.Entry<String, String> l : values.entrySet()) {
            String value = dynamic(l.getValue(), f);
            if (value == null) {
                warnings.add("rule '" + rule + "': " + what + " " + l.getKey() + " left out: " + l.getValue()
                        + " names no attribute");
            } else {
                resolved.put(l.getKey(), value);
            }
        }
        return Collections.unmodifiableMap(resolved);
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
