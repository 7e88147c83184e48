package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@EnableKubernetesMockClient(crud = true)
class NodeFeaturePublisherTest {

    KubernetesClient client;

    private GenericKubernetesResource read(String ns, String name) {
        return client.genericKubernetesResources(NodeFeaturePublisher.NODE_FEATURE).inNamespace(ns).withName(name).get();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("spec");
    }

    @Test
    void createsThenUpdatesOnlyOnChange() throws Exception {
        NodeFeaturePublisher p = new NodeFeaturePublisher(client, "node-labeller", "", "worker-1");
        Map<String, String> labels = Map.of("feature.node.kubernetes.io/kernel-version.major", "6",
                "nvidia.com/gpu.present", "true");
        assertTrue(p.publish(FeaturesFilePublisherTest.labels(labels, "kernel")), "created");

        GenericKubernetesResource created = read("node-labeller", "worker-1");
        assertEquals("nfd.k8s-sigs.io/v1alpha1", created.getApiVersion());
        assertEquals("NodeFeature", created.getKind());
        assertEquals(Map.of("nfd.node.kubernetes.io/node-name", "worker-1"), created.getMetadata().getLabels());
        assertEquals(labels, spec(created).get("labels"));
        assertEquals(Map.of("flags", Map.of(), "attributes", Map.of(), "instances", Map.of()), spec(created).get("features"));
        String version = created.getMetadata().getResourceVersion();

        assertFalse(p.publish(FeaturesFilePublisherTest.labels(labels, "kernel")), "unchanged: not written");
        assertEquals(version, read("node-labeller", "worker-1").getMetadata().getResourceVersion());

        Map<String, String> fewer = Map.of("nvidia.com/gpu.present", "true");
        assertTrue(p.publish(FeaturesFilePublisherTest.labels(fewer, "pci")), "updated");
        GenericKubernetesResource updated = read("node-labeller", "worker-1");
        assertEquals(fewer, spec(updated).get("labels"));
        assertNotEquals(version, updated.getMetadata().getResourceVersion());
    }

    @Test
    void restoresTheNodeNameLabelAndHonoursAConfiguredName() throws Exception {
        NodeFeaturePublisher p = new NodeFeaturePublisher(client, "nfd", "worker-2-gpu", "worker-2");
        Map<String, String> labels = Map.of("nvidia.com/gpu.present", "true");
        assertTrue(p.publish(FeaturesFilePublisherTest.labels(labels, "pci")));
        GenericKubernetesResource r = read("nfd", "worker-2-gpu");
        r.getMetadata().setLabels(Map.of("team", "gpu"));
        client.genericKubernetesResources(NodeFeaturePublisher.NODE_FEATURE).inNamespace("nfd").resource(r).update();

        assertTrue(p.publish(FeaturesFilePublisherTest.labels(labels, "pci")), "node-name label was lost: rewritten");
        assertEquals(Map.of("team", "gpu", "nfd.node.kubernetes.io/node-name", "worker-2"),
                read("nfd", "worker-2-gpu").getMetadata().getLabels(), "foreign labels kept");
    }

    @Test
    void apiErrorsBecomePublishExceptionsWithTheStatus() {
        KubernetesMockServer server = new KubernetesMockServer(false); // plain http, expectations (no CRUD)
        server.init(InetAddress.getLoopbackAddress(), 0);
        try (KubernetesClient c = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig())) {
            server.expect().get().withPath("/apis/nfd.k8s-sigs.io/v1alpha1/namespaces/ns/nodefeatures/w")
                    .andReturn(403, new StatusBuilder().withCode(403).withMessage("forbidden by RBAC").build()).once();
            PublishException e = assertThrows(PublishException.class, () -> new NodeFeaturePublisher(c, "ns", "", "w")
                    .publish(FeaturesFilePublisherTest.labels(Map.of("a/b", "c"), "pci")));
            assertEquals(403, e.status());
            assertTrue(e.getMessage().startsWith("NodeFeature ns/w: "), e.getMessage());
        } finally {
            server.destroy();
        }
    }
}
