package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodelabeller.label.LabelSet;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes the labels into an NFD {@code NodeFeature} object ({@code nfd.k8s-sigs.io/v1alpha1}, SPEC §6), for
 * clusters that keep nfd-master as the writer of Node labels. The object is named after the node (or as
 * configured), carries the label {@code nfd.node.kubernetes.io/node-name: <node>} by which nfd-master finds it,
 * and holds our labels in {@code spec.labels} with an empty {@code spec.features}. Like nfd-worker it reads the
 * object once per cycle and creates or updates it only when it differs. The CRD's model is not part of fabric8,
 * so the object is handled as a {@link GenericKubernetesResource}.
 */
public final class NodeFeaturePublisher implements Publisher {

    public static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";

    static final ResourceDefinitionContext NODE_FEATURE = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io")
            .withVersion("v1alpha1")
            .withKind("NodeFeature")
            .withPlural("nodefeatures")
            .withNamespaced(true)
            .build();

    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final String nodeName;

    /** {@code name} empty or null means: the node's name. */
    public NodeFeaturePublisher(KubernetesClient client, String namespace, String name, String nodeName) {
        this.client = Objects.requireNonNull(client);
        this.namespace = Objects.requireNonNull(namespace);
        this.nodeName = Objects.requireNonNull(nodeName);
        this.name = name == null || name.isEmpty() ? nodeName : name;
    }

    @Override
    public String name() {
        return "nodefeature";
    }

    static Map<String, Object> spec(LabelSet labels) {
        Map<String, Object> features = new LinkedHashMap<>();
        features.put("flags", Map.of());
        features.put("attributes", Map.of());
        features.put("instances", Map.of());
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("features", features);
        spec.put("labels", new LinkedHashMap<>(labels.asMap()));
        return spec;
    }

    @Override
    public boolean publish(LabelSet desired) throws PublishException {
        Map<String, Object> spec = spec(desired);
        Resource<GenericKubernetesResource> resource = client.genericKubernetesResources(NODE_FEATURE)
                .inNamespace(namespace).withName(name);
        try {
            GenericKubernetesResource current = resource.get();
            if (current == null) {
                resource.create(new GenericKubernetesResourceBuilder()
                        .withApiVersion(NODE_FEATURE.getGroup() + "/" + NODE_FEATURE.getVersion())
                        .withKind(NODE_FEATURE.getKind())
                        .withNewMetadata().withName(name).withNamespace(namespace)
                        .addToLabels(NODE_NAME_LABEL, nodeName).endMetadata()
                        .addToAdditionalProperties("spec", spec)
                        .build());
                return true;
            }
            Map<String, String> labels = current.getMetadata().getLabels() == null ? Map.of()
                    : current.getMetadata().getLabels();
            if (spec.equals(current.getAdditionalProperties().get("spec")) && nodeName.equals(labels.get(NODE_NAME_LABEL))) {
                return false;
            }
            Map<String, String> newLabels = new HashMap<>(labels);
            newLabels.put(NODE_NAME_LABEL, nodeName);
            current.getMetadata().setLabels(newLabels);
            current.getAdditionalProperties().put("spec", spec);
            // carries the resourceVersion just read: a concurrent writer gives 409, retried next cycle
            client.genericKubernetesResources(NODE_FEATURE).inNamespace(namespace).resource(current).update();
            return true;
        } catch (KubernetesClientException e) {
            throw new PublishException("NodeFeature " + namespace + "/" + name + ": " + e.getMessage(), e.getCode(), e);
        }
    }
}
