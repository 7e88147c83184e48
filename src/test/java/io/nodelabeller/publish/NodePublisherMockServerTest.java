package io.nodelabeller.publish;

import io.nodelabeller.testing.ServerRequests;
import io.nodelabeller.testing.TestKubeconfig;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end against fabric8's mock API server in CRUD mode (it applies JSON Patches and serves WebSocket
 * watches): what lands on the node, and how many requests each publish costs, counted at the server.
 */
class NodePublisherMockServerTest {

    static final String NODE = "worker-1";
    static final String ANNOTATION = NodePatch.MANAGED_ANNOTATION;

    KubernetesMockServer server;
    KubernetesClient admin;
    KubernetesClient client;
    List<NodePublisher> publishers = new ArrayList<>();

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new io.nodelabeller.testing.NodeCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = server.createClient();
        Path kubeconfig = TestKubeconfig.write(dir, server.url("/"));
        client = KubernetesClients.create(kubeconfig, Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        publishers.forEach(NodePublisher::close);
        client.close();
        admin.close();
        server.destroy();
    }

    NodePublisher publisher() {
        NodePublisher p = new NodePublisher(client, NODE, NodePublisher.Settings.defaults(), PublishEvents.NONE);
        publishers.add(p);
        return p;
    }

    void createNode(Map<String, String> labels, Map<String, String> annotations) {
        admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).withLabels(labels)
                .withAnnotations(annotations).endMetadata().build()).create();
        drainRequests();
    }

    static LabelSet labels(String... kv) {
        Map<String, Label> out = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put(kv[i], Label.of(kv[i], kv[i + 1], "test", "test"));
        }
        return new LabelSet(new TreeMap<>(out), List.of());
    }

    Node node() {
        Node n = admin.nodes().withName(NODE).get();
        drainRequests();
        return n;
    }

    /** The requests the server received since the last call, as "METHOD path". */
    List<String> drainRequests() {
        return ServerRequests.drain(server, 50);
    }

    /** Waits (bounded) until the publisher's watch has delivered a node matching {@code p}. */
    static void awaitView(NodePublisher publisher, Predicate<Node> p) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            Node n = publisher.viewed();
            if (n != null && p.test(n)) {
                return;
            }
            Thread.sleep(10);
        }
        fail("the watch did not deliver the change");
    }

    static Map<String, String> foreign() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("kubernetes.io/hostname", NODE);
        m.put("team.example.com/owner", "ops");
        return m;
    }

    @Test
    void addsOwnsRemovesRestoresAndSendsNothingAtRest() throws Exception {
        createNode(foreign(), Map.of("note.example.com/comment", "café — Zürich é"));
        NodePublisher publisher = publisher();

        assertTrue(publisher.publish(labels("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel",
                "nvidia.com/gpu.present", "true")));
        List<String> first = drainRequests();
        assertEquals(3, first.size(), "GET, watch, PATCH: " + first);
        assertEquals(1, first.stream().filter(r -> r.startsWith("PATCH")).count(), first.toString());

        Node n = node();
        assertEquals("Intel", n.getMetadata().getLabels().get("feature.node.kubernetes.io/cpu-model.vendor_id"));
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.present"));
        assertEquals("ops", n.getMetadata().getLabels().get("team.example.com/owner"));
        assertEquals(NODE, n.getMetadata().getLabels().get("kubernetes.io/hostname"));
        assertEquals("feature.node.kubernetes.io/cpu-model.vendor_id,nvidia.com/gpu.present",
                n.getMetadata().getAnnotations().get(ANNOTATION));
        assertEquals("café — Zürich é", n.getMetadata().getAnnotations().get("note.example.com/comment"));

        // steady state: nothing to change → not one request
        for (int i = 0; i < 5; i++) {
            assertFalse(publisher.publish(labels("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel",
                    "nvidia.com/gpu.present", "true")));
        }
        assertEquals(List.of(), drainRequests());

        // someone else changes an owned label: the watch shows it, the next publish restores it
        admin.nodes().withName(NODE).edit(x -> new NodeBuilder(x).editMetadata()
                .addToLabels("nvidia.com/gpu.present", "false").endMetadata().build());
        drainRequests();
        awaitView(publisher, x -> "false".equals(x.getMetadata().getLabels().get("nvidia.com/gpu.present")));
        assertTrue(publisher.publish(labels("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel",
                "nvidia.com/gpu.present", "true")));
        List<String> restore = drainRequests();
        assertEquals(1, restore.size(), "one PATCH, no GET: " + restore);
        assertTrue(restore.get(0).startsWith("PATCH /api/v1/nodes/" + NODE), restore.toString());
        assertEquals("true", node().getMetadata().getLabels().get("nvidia.com/gpu.present"));

        // a label no longer desired is removed, foreign ones stay
        assertTrue(publisher.publish(labels("nvidia.com/gpu.present", "true")));
        n = node();
        assertNull(n.getMetadata().getLabels().get("feature.node.kubernetes.io/cpu-model.vendor_id"));
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.present"));
        assertEquals(foreign().get("team.example.com/owner"), n.getMetadata().getLabels().get("team.example.com/owner"));
        assertEquals(NODE, n.getMetadata().getLabels().get("kubernetes.io/hostname"));
        assertEquals("nvidia.com/gpu.present", n.getMetadata().getAnnotations().get(ANNOTATION));
        assertEquals("café — Zürich é", n.getMetadata().getAnnotations().get("note.example.com/comment"));
    }

    /**
     * {@code prepare()} (run and once call it as they set up) builds the Node's JSON readers on its own thread and
     * sends nothing; the first publish after it costs the same three requests and lands the same labels.
     */
    @Test
    void preparingTheNodeReadSendsNothingAndChangesNoPublish() throws Exception {
        createNode(foreign(), Map.of());
        NodePublisher publisher = publisher();
        publisher.prepare();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("prepare-Node")) {
                t.join(10_000);
                assertFalse(t.isAlive(), "the preparation did not end");
            }
        }
        assertEquals(List.of(), drainRequests());

        assertTrue(publisher.publish(labels("nvidia.com/gpu.present", "true")));
        List<String> first = drainRequests();
        assertEquals(3, first.size(), "GET, watch, PATCH: " + first);
        assertEquals("true", node().getMetadata().getLabels().get("nvidia.com/gpu.present"));
    }

    @Test
    void restartWithTheSameLabelsRemovesNothingAndWritesNothing() throws Exception {
        createNode(foreign(), Map.of("note.example.com/comment", "é"));
        LabelSet desired = labels("feature.node.kubernetes.io/kernel-version.major", "6", "nvidia.com/gpu.count", "8");
        NodePublisher first = publisher();
        assertTrue(first.publish(desired));
        first.close();
        Node before = node();
        drainRequests();

        NodePublisher second = publisher();
        assertFalse(second.publish(desired));
        List<String> requests = drainRequests();
        assertEquals(2, requests.size(), "one GET and one watch: " + requests);
        assertTrue(requests.stream().noneMatch(r -> r.startsWith("PATCH")), requests.toString());
        assertEquals(before.getMetadata().getLabels(), node().getMetadata().getLabels());
        assertFalse(second.publish(desired));
        assertEquals(List.of(), drainRequests());
    }

    @Test
    void aWatchSilentForTenCyclesIsCheckedWithOneReadAndKeptWhenItMissedNothing() throws Exception {
        createNode(foreign(), Map.of());
        FakeTiming timing = new FakeTiming();
        NodePublisher publisher = new NodePublisher(client, NODE, NodePublisher.Settings.defaults().withTiming(timing, new Random(1))
                .withCycleInterval(Duration.ofSeconds(60)), PublishEvents.NONE);
        publishers.add(publisher);
        LabelSet desired = labels("nvidia.com/gpu.present", "true");
        assertTrue(publisher.publish(desired));
        awaitView(publisher, n -> n.getMetadata().getAnnotations() != null); // our patch's own event: a sign of life
        drainRequests();
        timing.sleep(Duration.ofMinutes(9));
        assertFalse(publisher.publish(desired));
        assertEquals(List.of(), drainRequests());
        timing.sleep(Duration.ofMinutes(2));
        assertFalse(publisher.publish(desired));
        assertEquals(List.of("GET /api/v1/nodes/" + NODE), drainRequests(), "one read; nothing was missed, so the watch is kept");
        assertFalse(publisher.publish(desired));
        assertEquals(List.of(), drainRequests());
    }

    @Test
    void aNodeWithoutLabelsOrAnnotationsGetsBothMapsCreated() throws Exception {
        admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
        drainRequests();
        NodePublisher publisher = publisher();
        assertTrue(publisher.publish(labels("nvidia.com/gpu.present", "true")));
        Node n = node();
        assertEquals(Map.of("nvidia.com/gpu.present", "true"), n.getMetadata().getLabels());
        assertEquals(Map.of(ANNOTATION, "nvidia.com/gpu.present"), n.getMetadata().getAnnotations());
    }

    /**
     * A label nfd-master lists as its own (GFD's labels arrive through NFD: nfd.node.kubernetes.io/feature-labels,
     * keys of NFD's own namespace without the prefix) is taken over in two patches of one publish: the first only lists
     * the key as owned, the second sets the value. The admission policy lets the agent change only keys listed as
     * owned before the change, and list an existing key only when nfd-master lists it.
     */
    @Test
    void aLabelNfdMasterHandsOverIsTakenOver() throws Exception {
        Map<String, String> labels = foreign();
        labels.put("nvidia.com/gpu.product", "old");
        createNode(labels, Map.of(NodePatch.NFD_LABELS, "cpu-model.vendor_id,nvidia.com/gpu.product"));
        NodePublisher publisher = publisher();
        List<NodePatch.Op> sent = publisher.apply(labels("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB").asMap());
        List<String> requests = drainRequests();
        assertEquals(2, requests.stream().filter(x -> x.startsWith("PATCH")).count(), requests.toString());
        // first patch: the key listed, nfd-master's value untouched; second: the value, alone
        assertEquals(List.of(new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-labels", "nvidia.com/gpu.product"),
                new NodePatch.Op("replace", "/metadata/labels/nvidia.com~1gpu.product", "NVIDIA-A100-SXM4-40GB")), sent);
        Node n = node();
        assertEquals("NVIDIA-A100-SXM4-40GB", n.getMetadata().getLabels().get("nvidia.com/gpu.product"));
        assertEquals("nvidia.com/gpu.product", n.getMetadata().getAnnotations().get(ANNOTATION));
        // owned from now on: removed when no longer desired
        assertTrue(publisher.publish(labels()));
        n = node();
        assertNull(n.getMetadata().getLabels().get("nvidia.com/gpu.product"));
        assertEquals("ops", n.getMetadata().getLabels().get("team.example.com/owner"));
    }

    /**
     * Any other writer's label with a desired key (an admin's, the GPU Operator's) is neither listed nor changed; the
     * conflict is logged once, not every cycle, and once more when it is gone.
     */
    @Test
    void anotherWritersLabelIsLeftAsItIs() throws Exception {
        Map<String, String> labels = foreign();
        labels.put("nvidia.com/gpu.product", "admins");
        createNode(labels, Map.of());
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(NodePublisher.class)) {
            NodePublisher publisher = publisher();
            LabelSet want = labels("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.present", "true");
            publisher.publish(want);
            publisher.publish(want);
            Node n = node();
            assertEquals("admins", n.getMetadata().getLabels().get("nvidia.com/gpu.product"));
            assertEquals("nvidia.com/gpu.present", n.getMetadata().getAnnotations().get(ANNOTATION), "only what it could take");
            List<String> warnings = log.events().stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                    .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("another writer holds label nvidia.com/gpu.product"), warnings.get(0));
            publisher.publish(labels("nvidia.com/gpu.present", "true"));
            assertTrue(log.events().stream().anyMatch(e -> e.getFormattedMessage().contains("no output of another writer in the way")));
        }
    }

    @Test
    void pruneRemovesOwnedLabelsAndTheAnnotationOnly() throws Exception {
        createNode(foreign(), Map.of("note.example.com/comment", "é"));
        NodePublisher publisher = publisher();
        assertTrue(publisher.publish(labels("nvidia.com/gpu.present", "true", "feature.node.kubernetes.io/a", "b")));
        // the publisher stays open: the mock server stalls writing a watch event to a watch closed just before

        NodePruner pruner = new NodePruner(client, NODE, NodePublisher.Settings.defaults(), PublishEvents.NONE);
        drainRequests();
        assertEquals(2, pruner.prune());
        assertEquals(List.of("GET /api/v1/nodes/" + NODE, "PATCH /api/v1/nodes/" + NODE), drainRequests());
        Node n = node();
        assertEquals(foreign(), n.getMetadata().getLabels());
        assertEquals(Map.of("note.example.com/comment", "é"), n.getMetadata().getAnnotations());
        assertEquals(0, pruner.prune());
        List<String> requests = drainRequests();
        assertEquals(1, requests.size(), "a second prune only reads: " + requests);
    }
}
