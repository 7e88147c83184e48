package io.nodelabeller.config.rules;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One element of {@code matchFeatures}: a feature ({@code <domain>.<feature>}, e.g. {@code pci.device}) and the
 * expressions its elements must satisfy.
 *
 * @param feature          the feature key as written
 * @param matchExpressions element name → expression, in the order written; null when the term has none
 * @param matchName        an expression on element names, or null
 */
public record FeatureTerm(String feature, Map<String, MatchExpression> matchExpressions, MatchExpression matchName) {

    public FeatureTerm {
        matchExpressions = matchExpressions == null ? null
                : Collections.unmodifiableMap(new LinkedHashMap<>(matchExpressions));
    }
}
