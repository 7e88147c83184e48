package io.nodelabeller.label.rules;

import io.nodelabeller.config.CoreConfig;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.Labeler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code custom} labeler: NFD's static rules, then {@code sources.custom}, then the custom.d rule files, in
 * that order (NFD's order). Keys are left as the rule wrote them; unprefixed ones get
 * {@code feature.node.kubernetes.io/} and every output is validated by the labelling stage. A rule's annotations,
 * taints and extended resources are outputs here as they are in a NodeFeatureRule object, so one rule can move
 * between a file and an object.
 */
public final class CustomLabeler implements Labeler {

    /** The labeler's name in the catalog and {@code core.labelSources}, and the tag of its labels. */
    public static final String NAME = "custom";

    private static final Logger LOG = LoggerFactory.getLogger(CustomLabeler.class);

    private final List<Rule> rules;

    /** @param configured the rules of the config file and custom.d, run after NFD's static rules */
    public CustomLabeler(List<Rule> configured) {
        List<Rule> all = new ArrayList<>(StaticRules.RULES);
        all.addAll(configured);
        this.rules = List.copyOf(all);
    }

    @Override
    public List<LabelDoc> docs() {
        String nfd = LabelValidity.NFD_PREFIX;
        String rules = "the rules of sources.custom and of " + CoreConfig.DEFAULT_CUSTOM_RULES_DIR + "/*";
        return List.of(
                LabelDoc.key(nfd + "rdma.capable").source(NAME)
                        .from("/sys/bus/pci/devices/*/vendor").example("true")
                        .means("NFD built-in rule: a Mellanox PCI device (vendor 15b3) is present."),
                LabelDoc.key(nfd + "rdma.available").source(NAME)
                        .from("/proc/modules").example("true")
                        .means("NFD built-in rule: the ib_uverbs and rdma_ucm modules are loaded."),
                LabelDoc.key(nfd + "<key>").source(NAME)
                        .from(rules)
                        .example(nfd + "gpu-node", "true")
                        .means("A label (labels or labelsTemplate; vars are not labels) of a matching rule, key without prefix."),
                LabelDoc.key("<domain>/<key>").source(NAME)
                        .from(rules)
                        .example("example.com/accelerator", "a100")
                        .means("The same for a key with its own prefix (namespace rules apply: core.extraLabelNs, "
                                + "core.denyLabelNs)."));
    }

    @Override
    public List<Label> labels(Features features) {
        return produce(features).labels();
    }

    @Override
    public Produced produce(Features features) {
        RuleEngine.Result result = RuleEngine.run(rules, features);
        result.warnings().forEach(w -> LOG.warn("custom rules: {}", w));
        return RuleEngine.produced(result, NAME, RuleEngine.Output::evidence, Set.of(), Set.of());
    }
}
