package io.nodelabeller.publish;

import io.nodelabeller.log.ProblemLog;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelSet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes the labels into an NFD {@code NodeFeature} object ({@code nfd.k8s-sigs.io/v1alpha1}), for
 * clusters that keep nfd-master as the writer of Node labels. The object is named after the node (or as
 * configured), carries the label {@code nfd.node.kubernetes.io/node-name: <node>} by which nfd-master finds it,
 * and holds our labels in {@code spec.labels} and the discovered features in {@code spec.features} (NFD's format,
 * less {@code core.noPublishFeatures}), so that nfd-master's NodeFeatureRules can match them. Owner references
 * follow {@code core.ownerRefs} ({@link OwnerRefs}). Like nfd-worker it reads the object once per cycle and creates
 * or updates it only when it differs; requests and failures are handled as the node patch's ({@link ApiClient},
 * {@link Retrying}: a 409 reads again, 429/5xx/timeouts back off within the publish). The CRD's model is not part of fabric8,
 * so the object is handled as a {@link GenericKubernetesResource}.
 */
public final class NodeFeaturePublisher implements Publisher {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NodeFeaturePublisher.class);

    public static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";

    static final ResourceDefinitionContext NODE_FEATURE = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io")
            .withVersion("v1alpha1")
            .withKind("NodeFeature")
            .withPlural("nodefeatures")
            .withNamespaced(true)
            .build();

    private final PublishEvents events;
    private final Install install;
    private final String namespace;
    private final String name;
    private final String nodeName;
    private final FeatureFilter filter;
    private final OwnerRefs owners;
    private final ApiClient api;
    private final Retrying retrying;
    private final ProblemLog problems;
    private final String collection;
    /** "NodeFeature namespace/name", in log lines and errors. */
    private final String subject;

    /**
     * {@code name} empty or null means: the node's name. No owner references, every feature, the default install's
     * outputs unchecked ({@link Install#unchecked}: tests).
     */
    public NodeFeaturePublisher(KubernetesClient client, String namespace, String name, String nodeName) {
        this(client, namespace, name, nodeName, List.of(), List.of(), OwnerRefs.Pod.NONE, NodePublisher.Settings.defaults(),
                PublishEvents.NONE, Install.unchecked(Bookkeeping.DEFAULT));
    }

    /**
     * The features whose element names nfd-master's rules can turn into label keys as they are (a pass-through rule
     * such as {@code labelsTemplate: "{{ range .local.label }}{{ .Name }}={{ .Value }}..."}): their names pass the
     * install's write scope like labels (an unprefixed name as {@code feature.node.kubernetes.io/<name>}), here and in
     * the install's NodeFeature admission policy.
     */
    public static final List<String> LABEL_LIKE_FEATURES = List.of("local.label", "local.feature");

    /**
     * With NFD's {@code core.ownerRefs} (a subset of node, pod, ds; {@code pod} is the agent's own pod, which must
     * run in {@code namespace}) and {@code core.noPublishFeatures}; requests are retried as {@code settings} say
     * and their failures reported to {@code events}.
     */
    public NodeFeaturePublisher(KubernetesClient client, String namespace, String name, String nodeName,
                                List<String> ownerRefs, List<String> noPublishFeatures, OwnerRefs.Pod pod,
                                NodePublisher.Settings settings, PublishEvents events, Install install) {
        Objects.requireNonNull(client);
        this.install = Objects.requireNonNull(install);
        this.namespace = Objects.requireNonNull(namespace);
        this.nodeName = Objects.requireNonNull(nodeName);
        this.name = name == null || name.isEmpty() ? nodeName : name;
        this.filter = new FeatureFilter(noPublishFeatures);
        this.events = events;
        this.api = new ApiClient(client, settings.requestTimeout(), settings.timing());
        this.retrying = new Retrying(settings);
        this.subject = "NodeFeature " + namespace + "/" + this.name;
        this.problems = new ProblemLog(LOG, subject);
        this.collection = "/apis/" + NODE_FEATURE.getGroup() + "/" + NODE_FEATURE.getVersion() + "/namespaces/"
                + namespace + "/" + NODE_FEATURE.getPlural();
        this.owners = new OwnerRefs(api, namespace, nodeName, ownerRefs, pod);
    }

    @Override
    public String name() {
        return "nodefeature";
    }

    static Map<String, Object> spec(LabelSet labels, Features features, FeatureFilter filter) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("features", filter.nfdFeatures(features));
        spec.put("labels", new LinkedHashMap<>(labels.asMap()));
        return spec;
    }

    /** {@code spec}'s label-like features ({@link #LABEL_LIKE_FEATURES}) without the names outside the write scope. */
    @SuppressWarnings("unchecked")
    private void withinScope(Map<String, Object> spec, Map<String, String> dropped) throws PublishException {
        Map<String, Object> attributes = (Map<String, Object>) ((Map<String, Object>) spec.get("features")).get("attributes");
        for (String feature : LABEL_LIKE_FEATURES) {
            Object set = attributes.get(feature);
            if (set == null) {
                continue;
            }
            Map<String, String> elements = (Map<String, String>) ((Map<String, Object>) set).get("elements");
            Map<String, String> allowed = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : elements.entrySet()) {
                String key = e.getKey().indexOf('/') < 0 ? io.nodelabeller.label.LabelValidity.NFD_PREFIX + e.getKey() : e.getKey();
                String problem = install.problem(LabelSet.Kind.LABEL, key);
                if (problem == null) {
                    allowed.put(e.getKey(), e.getValue());
                } else {
                    dropped.put("feature " + feature + "." + e.getKey(), problem);
                }
            }
            attributes.put(feature, Map.of("elements", allowed));
        }
    }

    /** Without features: an empty {@code spec.features}. */
    @Override
    public boolean publish(LabelSet desired) throws PublishException {
        return publish(desired, Features.empty());
    }

    @Override
    public boolean publish(LabelSet desired, Features features) throws PublishException {
        Map<String, String> dropped = new java.util.TreeMap<>();
        Map<String, Object> spec = spec(install.filter(desired, dropped), features, filter);
        withinScope(spec, dropped);
        install.report(dropped);
        List<OwnerReference> ownerRefs = owners.resolve();
        WriteBudget budget = install.budget();
        Retrying.Run run = retrying.start(subject, problems, f -> events.apiError(f.status),
                status -> status == 403 ? " (RBAC: the nfd-compat Role grants create/update on nodefeatures)" : "");
        boolean written = false;
        // usually one write; more where the labels to add are spread over several (WriteBudget)
        for (int writes = 0; writes < MAX_WRITES; writes++) {
            Step step = write(run, spec, ownerRefs, budget);
            written |= step != Step.UNCHANGED;
            if (step != Step.PARTIAL) {
                break;
            }
        }
        problems.ok();
        return written;
    }

    /** Writes at most this many times per publish. */
    private static final int MAX_WRITES = 100;

    /** What one write did: nothing needed, the whole spec written, or a part of its new labels. */
    private enum Step { UNCHANGED, WRITTEN, PARTIAL }

    /** {@code spec} with as many of its labels new to {@code current} as one write may add ({@link WriteBudget}). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> step(Map<String, Object> spec, Map<String, String> current, WriteBudget budget) {
        java.util.SortedMap<String, String> labels = new java.util.TreeMap<>((Map<String, String>) spec.get("labels"));
        java.util.SortedMap<String, String> step = budget.step(labels, current, current::containsKey);
        if (step == labels) {
            return spec;
        }
        Map<String, Object> out = new LinkedHashMap<>(spec);
        out.put("labels", new LinkedHashMap<>(step));
        return out;
    }

    @SuppressWarnings("unchecked")
    private Step write(Retrying.Run run, Map<String, Object> target, List<OwnerReference> ownerRefs, WriteBudget budget)
            throws PublishException {
        return run.call(() -> {
            GenericKubernetesResource current;
            try {
                current = api.get(collection + "/" + name, GenericKubernetesResource.class);
            } catch (ApiClient.Failure f) {
                if (f.status != 404) {
                    throw f;
                }
                current = null;
            }
            if (current == null) {
                Map<String, Object> spec = step(target, Map.of(), budget);
                api.post(collection, new GenericKubernetesResourceBuilder()
                        .withApiVersion(NODE_FEATURE.getGroup() + "/" + NODE_FEATURE.getVersion())
                        .withKind(NODE_FEATURE.getKind())
                        .withNewMetadata().withName(name).withNamespace(namespace)
                        .addToLabels(NODE_NAME_LABEL, nodeName).withOwnerReferences(ownerRefs).endMetadata()
                        .addToAdditionalProperties("spec", spec)
                        .build(), GenericKubernetesResource.class);
                return spec == target ? Step.WRITTEN : Step.PARTIAL;
            }
            Object currentSpec = current.getAdditionalProperties().get("spec");
            Object currentLabels = currentSpec instanceof Map<?, ?> m ? m.get("labels") : null;
            Map<String, Object> spec = step(target, currentLabels instanceof Map<?, ?> l ? (Map<String, String>) l : Map.of(),
                    budget);
            Map<String, String> labels = current.getMetadata().getLabels() == null ? Map.of()
                    : current.getMetadata().getLabels();
            List<OwnerReference> currentRefs = current.getMetadata().getOwnerReferences() == null ? List.of()
                    : current.getMetadata().getOwnerReferences();
            if (spec.equals(currentSpec) && nodeName.equals(labels.get(NODE_NAME_LABEL)) && ownerRefs.equals(currentRefs)) {
                return Step.UNCHANGED;
            }
            Map<String, String> newLabels = new HashMap<>(labels);
            newLabels.put(NODE_NAME_LABEL, nodeName);
            current.getMetadata().setLabels(newLabels);
            // as nfd-worker: the complete list is ours and replaced
            current.getMetadata().setOwnerReferences(new ArrayList<>(ownerRefs));
            current.getAdditionalProperties().put("spec", spec);
            // carries the resourceVersion just read: a concurrent writer gives 409, and the attempt reads again
            api.put(collection + "/" + name, current, GenericKubernetesResource.class);
            return spec == target ? Step.WRITTEN : Step.PARTIAL;
        });
    }
}
