package io.nodelabeller.config.rules;

import io.nodelabeller.template.GoTemplate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One custom rule in NFD's language. A rule with neither {@code matchFeatures} nor {@code matchAny} always matches.
 * {@code annotations}, {@code taints} and {@code extendedResources} are outputs NFD has only in NodeFeatureRule
 * objects; node-labeller applies them from config files too (where {@code publish:} switches them on), so that one
 * rule can move between a file and an object.
 *
 * @param name           the rule's name (shown by explain and in warnings), or its place in the config when unnamed
 * @param labels         static labels; a value {@code @<domain>.<feature>.<element>} is read from an attribute
 * @param labelsTemplate template whose output lines are {@code key=value} labels, or null
 * @param vars           like labels, but only fed to later rules as {@code rule.matched}
 * @param varsTemplate   template for vars, or null
 * @param matchFeatures  terms that must all match
 * @param matchAny       alternatives, each a list of terms; at least one must match
 * @param annotations    node annotations
 * @param taints         node taints
 * @param extendedResources extended resources (node capacity); a value may be {@code @<domain>.<feature>.<element>}
 */
public record Rule(String name, Map<String, String> labels, GoTemplate labelsTemplate, Map<String, String> vars,
                   GoTemplate varsTemplate, List<FeatureTerm> matchFeatures, List<List<FeatureTerm>> matchAny,
                   Map<String, String> annotations, List<Taint> taints, Map<String, String> extendedResources) {

    /** A taint as Kubernetes writes it: {@code key}, an optional {@code value}, an {@code effect}. */
    public record Taint(String key, String value, String effect) {
    }

    public Rule {
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        vars = Collections.unmodifiableMap(new LinkedHashMap<>(vars));
        matchFeatures = List.copyOf(matchFeatures);
        matchAny = matchAny.stream().map(List::copyOf).toList();
        annotations = Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
        taints = List.copyOf(taints);
        extendedResources = Collections.unmodifiableMap(new LinkedHashMap<>(extendedResources));
    }

    /** A rule with labels and vars only (no annotations, taints or extended resources). */
    public Rule(String name, Map<String, String> labels, GoTemplate labelsTemplate, Map<String, String> vars,
                GoTemplate varsTemplate, List<FeatureTerm> matchFeatures, List<List<FeatureTerm>> matchAny) {
        this(name, labels, labelsTemplate, vars, varsTemplate, matchFeatures, matchAny, Map.of(), List.of(), Map.of());
    }

    public boolean hasTemplates() {
        return labelsTemplate != null || varsTemplate != null;
    }
}
