package io.nodelabeller.config.rules;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One custom rule in NFD's language (the subset NFD's worker accepts: no annotations, taints or extended
 * resources). A rule with neither {@code matchFeatures} nor {@code matchAny} always matches.
 *
 * @param name           the rule's name (shown by explain and in warnings), or its place in the config when unnamed
 * @param labels         static labels; a value {@code @<domain>.<feature>.<element>} is read from an attribute
 * @param labelsTemplate template whose output lines are {@code key=value} labels, or null
 * @param vars           like labels, but only fed to later rules as {@code rule.matched}
 * @param varsTemplate   template for vars, or null
 * @param matchFeatures  terms that must all match
 * @param matchAny       alternatives, each a list of terms; at least one must match
 */
public record Rule(String name, Map<String, String> labels, Template labelsTemplate, Map<String, String> vars,
                   Template varsTemplate, List<FeatureTerm> matchFeatures, List<List<FeatureTerm>> matchAny) {

    public Rule {
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        vars = Collections.unmodifiableMap(new LinkedHashMap<>(vars));
        matchFeatures = List.copyOf(matchFeatures);
        matchAny = matchAny.stream().map(List::copyOf).toList();
    }

    public boolean hasTemplates() {
        return labelsTemplate != null || varsTemplate != null;
    }
}
