package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.nodelabeller.feature.Features;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;
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

    /**
     * What nfd-master would turn into labels passes the install's write scope, as the install's NodeFeature policy
     * checks it: spec.labels, and the names of local.label / local.feature (a pass-through rule makes label keys of
     * them as they are; an unprefixed name means feature.node.kubernetes.io/). The other features are published whole.
     */
    @Test
    void onlyKeysInTheWriteScopeAreOfferedToNfdMaster() throws Exception {
        Install install = Install.of(Bookkeeping.DEFAULT, io.nodelabeller.label.WriteScope.of(Map.of(), "ClusterRoleBinding x"),
                k -> k.equals("nvidia.com/gpu.present"));
        NodeFeaturePublisher p = new NodeFeaturePublisher(client, "node-labeller", "", "worker-9", List.of(), List.of(),
                OwnerRefs.Pod.NONE, NodePublisher.Settings.defaults(), PublishEvents.NONE, install);
        Map<String, String> local = Map.of("rack", "r1", "example.com/rack", "r1", "nvidia.com/gpu.deploy.driver", "false");
        Features features = Features.builder("local").attributes("label", local).attributes("feature", local).build()
                .merge(features());
        p.publish(FeaturesFilePublisherTest.labels(Map.of("feature.node.kubernetes.io/kernel-version.major", "6",
                "nvidia.com/gpu.present", "true", "example.com/rack", "r1"), "local"), features);
        Map<String, Object> spec = spec(read("node-labeller", "worker-9"));
        assertEquals(Map.of("feature.node.kubernetes.io/kernel-version.major", "6", "nvidia.com/gpu.present", "true"),
                spec.get("labels"));
        Map<?, ?> attributes = (Map<?, ?>) ((Map<?, ?>) spec.get("features")).get("attributes");
        assertEquals(Map.of("elements", Map.of("rack", "r1")), attributes.get("local.label"));
        assertEquals(Map.of("elements", Map.of("rack", "r1")), attributes.get("local.feature"));
        assertEquals(Map.of("elements", Map.of("major", "6")), attributes.get("kernel.version"), "other features whole");
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

    private static Features features() {
        return Features.builder("kernel")
                .flags("loadedmodule", List.of("nvidia", "ib_uverbs"))
                .attribute("version", "major", "6")
                .attribute("config", "PREEMPT", "y")
                .build()
                .merge(Features.builder("pci")
                        .instance("device", Map.of("vendor", "10de", "class", "0302"))
                        .build())
                .merge(Features.builder("usb").instance("device", Map.of("vendor", "1d6b")).build());
    }

    @Test
    void featuresInNfdFormatLessNoPublishFeatures() throws Exception {
        NodeFeaturePublisher p = new NodeFeaturePublisher(client, "nfd", "", "worker-3", List.of(),
                List.of("kernel.config", "usb.*"), OwnerRefs.Pod.NONE, NodePublisher.Settings.defaults(), PublishEvents.NONE, Install.unchecked(Bookkeeping.DEFAULT));
        Map<String, String> labels = Map.of("nvidia.com/gpu.present", "true");
        assertTrue(p.publish(FeaturesFilePublisherTest.labels(labels, "pci"), features()));
        GenericKubernetesResource r = read("nfd", "worker-3");
        assertEquals(Map.of(
                "flags", Map.of("kernel.loadedmodule", Map.of("elements", Map.of("ib_uverbs", Map.of(), "nvidia", Map.of()))),
                "attributes", Map.of("kernel.version", Map.of("elements", Map.of("major", "6"))),
                "instances", Map.of("pci.device", Map.of("elements",
                        List.of(Map.of("attributes", Map.of("class", "0302", "vendor", "10de")))))),
                spec(r).get("features"));
        assertTrue(r.getMetadata().getOwnerReferences().isEmpty(), "ownerRefs: []");
        assertFalse(p.publish(FeaturesFilePublisherTest.labels(labels, "pci"), features()),
                "the copy read back equals what would be written: no update");
    }

    @Test
    void ownerReferencesOfPodDaemonSetAndNode() throws Exception {
        String nodeUid = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("worker-4")
                .endMetadata().build()).create().getMetadata().getUid();
        client.pods().inNamespace("nfd").resource(new PodBuilder().withNewMetadata().withName("agent-x")
                .withUid("pod-uid").addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet")
                .withName("node-labeller").withUid("ds-uid").withController(true).endOwnerReference()
                .endMetadata().build()).create();
        NodeFeaturePublisher p = new NodeFeaturePublisher(client, "nfd", "", "worker-4", List.of("pod", "ds", "node"),
                List.of(), new OwnerRefs.Pod("agent-x", "pod-uid"), NodePublisher.Settings.defaults(), PublishEvents.NONE, Install.unchecked(Bookkeeping.DEFAULT));
        assertTrue(p.publish(FeaturesFilePublisherTest.labels(Map.of("a/b", "c"), "pci")));
        List<String> refs = read("nfd", "worker-4").getMetadata().getOwnerReferences().stream()
                .map(o -> o.getApiVersion() + " " + o.getKind() + " " + o.getName() + " " + o.getUid() + " "
                        + o.getBlockOwnerDeletion() + " " + o.getController())
                .toList();
        assertEquals(List.of("v1 Pod agent-x pod-uid false null", "apps/v1 DaemonSet node-labeller ds-uid false null",
                "v1 Node worker-4 " + nodeUid + " false null"), refs);
    }

    @Test
    void aPodReferenceIsNotSetWithoutTheDaemonSetOne() throws Exception {
        // the pod cannot be read (not there): no ds reference, and so no pod reference either
        NodeFeaturePublisher p = new NodeFeaturePublisher(client, "nfd", "", "worker-5", List.of("pod", "ds"),
                List.of(), new OwnerRefs.Pod("agent-y", "pod-uid"), NodePublisher.Settings.defaults(), PublishEvents.NONE, Install.unchecked(Bookkeeping.DEFAULT));
        assertTrue(p.publish(FeaturesFilePublisherTest.labels(Map.of("a/b", "c"), "pci")));
        assertTrue(read("nfd", "worker-5").getMetadata().getOwnerReferences().isEmpty());

        NodeFeaturePublisher podOnly = new NodeFeaturePublisher(client, "nfd", "", "worker-6", List.of("pod"),
                List.of(), new OwnerRefs.Pod("agent-y", "pod-uid"), NodePublisher.Settings.defaults(), PublishEvents.NONE, Install.unchecked(Bookkeeping.DEFAULT));
        assertTrue(podOnly.publish(FeaturesFilePublisherTest.labels(Map.of("a/b", "c"), "pci")));
        assertEquals(List.of("Pod"), read("nfd", "worker-6").getMetadata().getOwnerReferences().stream()
                .map(o -> o.getKind()).toList(), "pod alone when asked for alone");
    }
}
