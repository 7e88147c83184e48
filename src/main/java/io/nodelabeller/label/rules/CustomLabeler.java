package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code custom} labeler: NFD's static rules, then {@code sources.custom}, then the custom.d rule files, in
 * that order (NFD's order). Keys are left as the rule wrote them; unprefixed ones get
 * {@code feature.node.kubernetes.io/} and every label is validated by the labelling stage.
 */
public final class CustomLabeler implements Labeler {

    private static final Logger LOG = LoggerFactory.getLogger(CustomLabeler.class);

    private final List<Rule> rules;

    /** @param configured the rules of the config file and custom.d, run after NFD's static rules */
    public CustomLabeler(List<Rule> configured) {
        List<Rule> all = new ArrayList<>(StaticRules.RULES);
        all.addAll(configured);
        this.rules = List.copyOf(all);
    }

    @Override
    public String name() {
        return "custom";
    }

    @Override
    public List<Label> labels(Features features) {
        RuleEngine.Result result = RuleEngine.run(rules, features);
        result.warnings().forEach(w -> LOG.warn("custom rules: {}", w));
        List<Label> out = new ArrayList<>();
        for (RuleEngine.Output o : result.outputs()) {
            for (Map.Entry<String, String> l : o.labels().entrySet()) {
                out.add(Label.of(l.getKey(), l.getValue(), name(), o.evidence()));
            }
        }
        return out;
    }
}
