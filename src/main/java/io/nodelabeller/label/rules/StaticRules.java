package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.FeatureTerm;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;
import io.nodelabeller.config.rules.Rule;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NFD's built-in custom rules, which run before any configured rule: {@code rdma.capable} when a PCI device
 * is Mellanox's (vendor 15b3), {@code rdma.available} when the ib_uverbs and rdma_ucm modules are loaded.
 * Unprefixed, so they become {@code feature.node.kubernetes.io/rdma.*} as in NFD v0.14 and later.
 */
public final class StaticRules {

    public static final List<Rule> RULES = List.of(
            rule("nfd built-in rdma.capable", "rdma.capable",
                    new FeatureTerm("pci.device", Map.of("vendor", MatchExpression.of(Op.In, "15b3")), null)),
            rule("nfd built-in rdma.available", "rdma.available",
                    new FeatureTerm("kernel.loadedmodule", ordered("ib_uverbs", MatchExpression.of(Op.Exists),
                            "rdma_ucm", MatchExpression.of(Op.Exists)), null)));

    private StaticRules() {
    }

    private static Rule rule(String name, String label, FeatureTerm term) {
        return new Rule(name, Map.of(label, "true"), null, Map.of(), null, List.of(term), List.of());
    }

    private static Map<String, MatchExpression> ordered(String k1, MatchExpression v1, String k2, MatchExpression v2) {
        Map<String, MatchExpression> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }
}
