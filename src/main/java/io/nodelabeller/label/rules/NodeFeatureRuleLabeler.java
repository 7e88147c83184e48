package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.log.ProblemLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code nodefeaturerule} labeler: the rules of every NodeFeatureRule object, as nfd-master runs them — objects in
 * name order, rules in list order, one {@code rule.matched} across all objects (starting empty: the rules of the
 * config file and custom.d are the worker's, whose back-references nfd-master never sees), references resolved after
 * the last rule. It runs after every other labeler, so its labels replace theirs of the same key (nfd-master: rule
 * labels override NodeFeature labels). Its outputs carry the object's name for {@code explain}.
 */
public final class NodeFeatureRuleLabeler implements Labeler {

    /** The labeler's name in the catalog, and the tag of its outputs. */
    public static final String NAME = "nodefeaturerule";

    private static final Logger LOG = LoggerFactory.getLogger(NodeFeatureRuleLabeler.class);

    private final RuleObjects objects;
    private final ProblemLog problems = new ProblemLog(LOG, "NodeFeatureRule objects");

    public NodeFeatureRuleLabeler(RuleObjects objects) {
        this.objects = objects;
    }

    @Override
    public List<LabelDoc> docs() {
        return List.of(LabelDoc.key("<domain>/<key>").source(NAME)
                .from("NodeFeatureRule objects (nfd.k8s-sigs.io/v1alpha1)")
                .example("vendor.io/my-sample-feature", "true")
                .means("A label of a matching rule of a NodeFeatureRule object; unprefixed keys get feature.node.kubernetes.io/."));
    }

    @Override
    public List<Label> labels(Features features) {
        return produce(features).labels();
    }

    @Override
    public Produced produce(Features features) {
        RuleObjects.View view = objects.current();
        List<Rule> rules = new ArrayList<>();
        List<String> objectOf = new ArrayList<>();
        for (RuleObjects.RuleObject o : view.objects()) {
            for (Rule r : o.rules()) {
                rules.add(r);
                objectOf.add(o.name());
            }
        }
        RuleEngine.Result result = RuleEngine.runAsMaster(rules, features);
        problems.report(result.warnings());
        return RuleEngine.produced(result, NAME, o -> "NodeFeatureRule " + objectOf.get(o.index()) + ", " + o.evidence(),
                Set.of(RuleObjects.INPUT), view.known() ? Set.of() : Set.of(RuleObjects.INPUT));
    }
}
