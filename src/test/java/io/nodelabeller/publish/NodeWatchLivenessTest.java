package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The watch on the agent's own node when it goes wrong, against fabric8's mock API server with scripted answers
 * (a CRUD server would deliver every change): a black-holed watch (open, silent, never closed) and a 410 Gone.
 * Watch requests are recorded with their query, as the API server receives them from fabric8.
 */
class NodeWatchLivenessTest {

    static final String NODE = "worker-1";
    static final String OWNED = "nvidia.com/gpu.present";
    /**
     * How long a scripted watch stays silent before its one event: longer than the test body (its clock is fake,
     * so it runs in well under a second), short because the mock server's teardown waits for pending emissions.
     */
    static final long SILENT_MILLIS = 8_000;

    KubernetesMockServer server;
    KubernetesClient client;
    final List<NodePublisher> publishers = new ArrayList<>();

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = KubernetesClients.create(TestKubeconfig.write(dir, server.url("/")), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        publishers.forEach(NodePublisher::close);
        client.close();
        server.destroy();
    }

    /** The node at {@code resourceVersion}, with our label at {@code value} and listed as ours. */
    static Node node(String resourceVersion, String value) {
        return new NodeBuilder().withNewMetadata().withName(NODE).withResourceVersion(resourceVersion)
                .addToLabels("kubernetes.io/hostname", NODE).addToLabels(OWNED, value)
                .addToAnnotations(NodePatch.MANAGED_ANNOTATION, OWNED).endMetadata().build();
    }

    static LabelSet desired() {
        return new LabelSet(new TreeMap<>(Map.of(OWNED, Label.of(OWNED, "true", "test", "test"))), List.of());
    }

    /** The requests since the last call, as "METHOD path?query" with the query decoded. */
    List<String> requests() throws InterruptedException {
        List<String> out = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            out.add(r.getMethod() + " " + URLDecoder.decode(r.getPath(), StandardCharsets.UTF_8));
        }
        return out;
    }

    NodePublisher publisher(FakeTiming timing) {
        NodePublisher p = new NodePublisher(client, NODE, NodePublisher.Settings.defaults().withTiming(timing, new Random(1))
                .withCycleInterval(Duration.ofSeconds(1)), PublishEvents.NONE);
        publishers.add(p);
        return p;
    }

    /**
     * A black-holed watch (a stuck API server, a dropped NAT entry): open, silent, never closed. Someone changes our
     * label meanwhile. With a 1 s cycle the silence limit is 10 s: the 11th cycle reads the node, sees a change the
     * watch never delivered, restores the label and opens a new watch from the read (restored within 13 s).
     */
    @Test
    void aSilentlyDeadWatchIsNoticedAndAForeignChangeRestoredWithinTenCycles() throws Exception {
        server.expect().get().withPath("/api/v1/nodes/" + NODE).andReturn(200, node("100", "true")).once();
        server.expect().get().withPath("/api/v1/nodes/" + NODE).andReturn(200, node("200", "false")).always();
        server.expect().patch().withPath("/api/v1/nodes/" + NODE).andReturn(200, node("300", "true")).always();
        // every watch: accepted, then silence for the whole test body (no event, no bookmark, no close)
        server.expect().get().withPath("/api/v1/nodes?allowWatchBookmarks=true&fieldSelector=metadata.name%3D" + NODE
                + "&resourceVersion=100&timeoutSeconds=3600&watch=true").andUpgradeToWebSocket().open()
                .waitFor(SILENT_MILLIS).andEmit(new WatchEvent(node("100", "true"), "BOOKMARK")).done().always();
        server.expect().get().withPath("/api/v1/nodes?allowWatchBookmarks=true&fieldSelector=metadata.name%3D" + NODE
                + "&resourceVersion=200&timeoutSeconds=3600&watch=true").andUpgradeToWebSocket().open()
                .waitFor(SILENT_MILLIS).andEmit(new WatchEvent(node("200", "false"), "BOOKMARK")).done().always();

        FakeTiming timing = new FakeTiming();
        NodePublisher publisher = publisher(timing);
        assertFalse(publisher.publish(desired()), "the node is right at start");
        List<String> first = requests();
        assertEquals(2, first.size(), first.toString());
        assertTrue(first.get(1).contains("resourceVersion=100") && first.get(1).contains("watch=true"), first.toString());

        int cycles = 0;
        boolean restored = false;
        while (!restored && cycles < 20) {
            timing.sleep(Duration.ofSeconds(1));
            cycles++;
            restored = publisher.publish(desired());
        }
        assertTrue(restored, "never restored");
        assertEquals(11, cycles, "restored at the first cycle past the 10 s silence limit");
        List<String> after = requests();
        assertEquals("GET /api/v1/nodes/" + NODE, after.get(0), after.toString());
        assertTrue(after.stream().anyMatch(r -> r.startsWith("PATCH /api/v1/nodes/" + NODE)), after.toString());
        assertTrue(after.stream().anyMatch(r -> r.contains("watch=true") && r.contains("resourceVersion=200")),
                "a new watch from the read: " + after);
    }

    /**
     * After 410 Gone the watch is opened again from a LIST's resourceVersion, not from the node's own (which is as
     * old as the node's last change and would give 410 again, every cycle, until the node changes).
     */
    @Test
    void afterA410TheWatchStartsFromAFreshList() throws Exception {
        Status gone = new StatusBuilder().withCode(410).withReason("Expired").withMessage("too old resource version: 100 (5000)").build();
        server.expect().get().withPath("/api/v1/nodes/" + NODE).andReturn(200, node("100", "true")).always();
        server.expect().get().withPath("/api/v1/nodes?allowWatchBookmarks=true&fieldSelector=metadata.name%3D" + NODE
                + "&resourceVersion=100&timeoutSeconds=3600&watch=true").andUpgradeToWebSocket().open()
                .immediately().andEmit(new WatchEvent(gone, "ERROR")).done().always();
        server.expect().get().withPath("/api/v1/nodes?fieldSelector=metadata.name%3D" + NODE)
                .andReturn(200, new NodeListBuilder().withNewMetadata().withResourceVersion("5000").endMetadata()
                        .addToItems(node("100", "true")).build()).always();
        server.expect().get().withPath("/api/v1/nodes?allowWatchBookmarks=true&fieldSelector=metadata.name%3D" + NODE
                + "&resourceVersion=5000&timeoutSeconds=3600&watch=true").andUpgradeToWebSocket().open().done().always();

        FakeTiming timing = new FakeTiming();
        NodePublisher publisher = publisher(timing);
        assertFalse(publisher.publish(desired()));
        List<String> all = new ArrayList<>(requests());
        for (int i = 0; i < 100 && all.stream().noneMatch(r -> r.contains("resourceVersion=5000")); i++) {
            Thread.sleep(50); // the 410 arrives on the watch's own thread
            timing.sleep(Duration.ofSeconds(1));
            assertFalse(publisher.publish(desired()));
            all.addAll(requests());
        }
        assertTrue(all.stream().anyMatch(r -> r.equals("GET /api/v1/nodes?fieldSelector=metadata.name=" + NODE)), all.toString());
        assertTrue(all.stream().anyMatch(r -> r.contains("watch=true") && r.contains("resourceVersion=5000")), all.toString());
        assertEquals(1, all.stream().filter(r -> r.contains("watch=true") && r.contains("resourceVersion=100")).count(),
                "not again from the node's own resourceVersion: " + all);
    }
}
