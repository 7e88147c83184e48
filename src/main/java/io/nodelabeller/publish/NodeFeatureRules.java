package io.nodelabeller.publish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleReader;
import io.nodelabeller.label.rules.RuleObjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * The NodeFeatureRule objects of the cluster ({@code nfd.k8s-sigs.io/v1alpha1}, cluster-scoped), read as nfd-master
 * reads them, through an {@link ObjectFeed}: one cluster-wide LIST and WATCH in {@code run}, one LIST in {@code once}.
 * Every agent sees an object's change at the same moment, so the cycle it runs is spread ({@code
 * publish.ruleChangeSpread}). Where the CRD is not installed (404) there are no objects; a 403 keeps the objects last
 * read (or what they produced on the node). An invalid rule of an object is left out with one error line naming the
 * object and the rule; the object's other rules apply.
 */
public final class NodeFeatureRules extends ObjectFeed implements RuleObjects {

    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withPlural("nodefeaturerules")
            .withKind("NodeFeatureRule").withNamespaced(false).build();

    private static final Logger LOG = LoggerFactory.getLogger(NodeFeatureRules.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, RuleObject> objects = new ConcurrentSkipListMap<>();

    /**
     * @param stateListener told every state change (metrics)
     * @param recheck       how long after a 404 or 403 the objects are read again
     */
    public NodeFeatureRules(KubernetesClient client, Consumer<State> stateListener, Duration recheck) {
        this(client, stateListener, recheck, Duration.ZERO, new java.util.Random());
    }

    /**
     * @param spread the longest random delay added to a change's 500 ms burst window (publish.ruleChangeSpread)
     * @param random where that delay is drawn
     */
    public NodeFeatureRules(KubernetesClient client, Consumer<State> stateListener, Duration recheck, Duration spread,
                            java.util.random.RandomGenerator random) {
        super(LOG, client, new Kind(CONTEXT, Map.of(), "NodeFeatureRule objects",
                "the service account needs get, list and watch on nodefeaturerules.nfd.k8s-sigs.io", "nodefeaturerules", true),
                stateListener, recheck, spread, random);
    }

    @Override
    public View current() {
        return known() ? new View(new ArrayList<>(objects.values()), true) : View.UNKNOWN;
    }

    @Override
    String syncedLine() {
        return "NodeFeatureRule objects: " + objects.size() + " read, watching for changes";
    }

    @Override
    String absentLine(Duration recheck) {
        return "NodeFeatureRule objects: the CRD nodefeaturerules.nfd.k8s-sigs.io is not installed; using the configured"
                + " rules only, checking again every " + recheck;
    }

    @Override
    boolean put(GenericKubernetesResource obj) {
        String name = obj.getMetadata().getName();
        RuleObject parsed = parse(name, obj.getAdditionalProperties().get("spec"));
        RuleObject before = objects.put(name, parsed);
        LOG.info("NodeFeatureRule {} {}: {} rule(s)", name, before == null ? "read" : "changed", parsed.rules().size());
        return true;
    }

    @Override
    boolean remove(GenericKubernetesResource obj) {
        if (objects.remove(obj.getMetadata().getName()) == null) {
            return false;
        }
        LOG.info("NodeFeatureRule {} deleted", obj.getMetadata().getName());
        return true;
    }

    @Override
    void clear() {
        objects.clear();
    }

    /** An object's rules; a rule with a problem is left out with one error line naming the object and the rule. */
    static RuleObject parse(String name, Object spec) {
        JsonNode tree = spec == null ? null : JSON.valueToTree(spec);
        List<String> skipped = new ArrayList<>();
        List<Rule> rules = RuleReader.readObjectRules("NodeFeatureRule " + name, tree == null ? null : tree.get("rules"), skipped);
        skipped.forEach(line -> LOG.error("{}", line));
        return new RuleObject(name, rules);
    }
}
