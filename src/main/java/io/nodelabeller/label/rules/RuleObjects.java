package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.Rule;

import java.util.Comparator;
import java.util.List;

/**
 * The NodeFeatureRule objects ({@code nfd.k8s-sigs.io/v1alpha1}, cluster-scoped) as the agent last saw them. The
 * publish stage reads them from the API server; labelling only asks for the current view, so no labeler talks to
 * Kubernetes.
 */
public interface RuleObjects {

    /** The input name an unknown view makes uncertain ({@code LabelSet.uncertain()}). */
    String INPUT = "nodefeaturerules";

    /** One object: its name and the rules of its {@code spec.rules} that could be read, in order. */
    record RuleObject(String name, List<Rule> rules) {
        public RuleObject {
            rules = List.copyOf(rules);
        }
    }

    /**
     * The objects sorted by name (nfd-master's order). {@code known} false: not read yet, or unreadable now
     * (forbidden, failing) and never read before; whatever such objects produced is then kept as it is on the node.
     * No objects and known (the CRD is not installed, or there are none) means: nothing comes from objects.
     */
    record View(List<RuleObject> objects, boolean known) {
        public View {
            objects = objects.stream().sorted(Comparator.comparing(RuleObject::name)).toList();
        }

        public static final View UNKNOWN = new View(List.of(), false);
    }

    View current();
}
