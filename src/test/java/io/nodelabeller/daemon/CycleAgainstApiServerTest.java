package io.nodelabeller.daemon;

import io.nodelabeller.testing.ServerRequests;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.publish.KubernetesClients;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The daemon's cycle end to end — real sources on a host tree the test changes, real labelling, retention and the
 * real Node publisher — against fabric8's mock API server in CRUD mode, counting the requests each cycle costs
 * (issue #4: first cycle, steady state, a failing source kept for staleAfter cycles, a feature that disappears,
 * a foreign edit of an owned label, foreign labels never touched).
 */
class CycleAgainstApiServerTest {

    private static final String NODE = "gpu-node-3";
    private static final String KERNEL_FULL = "feature.node.kubernetes.io/kernel-version.full";
    private static final String OS_VERSION = "feature.node.kubernetes.io/system-os_release.VERSION_ID";

    @TempDir
    Path dir;

    private Path host;
    private KubernetesMockServer server;
    private KubernetesClient admin;
    private KubernetesClient client;
    private NodePublisher publisher;
    private Cycle cycle;

    @BeforeEach
    void start() throws Exception {
        host = Files.createDirectories(dir.resolve("host"));
        write("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
        write("etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\n");

        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new io.nodelabeller.testing.NodeCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = server.createClient();
        admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("kubernetes.io/hostname", NODE).addToLabels("team.example.com/owner", "ml")
                .addToAnnotations("note.example.com/comment", "réservé à l'équipe")
                .endMetadata().build()).create();
        client = KubernetesClients.create(TestKubeconfig.write(dir, server.url("/")), Duration.ofSeconds(5));
        publisher = new NodePublisher(client, NODE, NodePublisher.Settings.defaults(), PublishEvents.NONE);

        Options options = Options.defaults().withHostRoot(host);
        List<String> sources = List.of("kernel", "system");
        Discovery discovery = new Discovery(new HostFs(host), Catalog.sources(Config.DEFAULT, options, sources));
        Labelling labelling = new Labelling(Catalog.labelers(Config.DEFAULT, options, sources), Catalog.labelValidity(Config.DEFAULT.core()), null);
        cycle = new Cycle(discovery, labelling, Retention.initial(3), List.of(publisher),
                new Metrics(), Clock.systemUTC());
        requests();
    }

    @AfterEach
    void stop() {
        publisher.close();
        client.close();
        admin.close();
        server.destroy();
    }

    private void write(String path, String content) throws Exception {
        Path f = host.resolve(path);
        Files.createDirectories(f.getParent());
        Files.writeString(f, content);
    }

    private Map<String, String> labels() {
        Node n = admin.nodes().withName(NODE).get();
        requests();
        return n.getMetadata().getLabels();
    }

    /** Requests the server received since the last call, as "METHOD path". */
    private List<String> requests() {
        return ServerRequests.drain(server, 100);
    }

    private List<String> patches() {
        return requests().stream().filter(r -> r.startsWith("PATCH")).toList();
    }

    @Test
    void keepsTheNodeRightThroughChangesFailuresAndForeignEdits() throws Exception {
        // first cycle: our labels and the ownership annotation arrive; foreign labels stay
        assertTrue(cycle.run().ok());
        Map<String, String> l = labels();
        assertEquals("6.8.0-45-generic", l.get(KERNEL_FULL));
        assertEquals("24.04", l.get(OS_VERSION));
        assertEquals("ml", l.get("team.example.com/owner"));
        assertEquals(NODE, l.get("kubernetes.io/hostname"));

        // steady state: nothing to change, no request at all
        for (int i = 0; i < 3; i++) {
            assertTrue(cycle.run().ok());
            assertEquals(List.of(), requests(), "cycle at rest");
        }

        // the kernel source fails: its labels are kept for staleAfter (3) cycles without a write...
        Files.delete(host.resolve("proc/sys/kernel/osrelease"));
        for (int i = 0; i < 3; i++) {
            cycle.run();
            assertEquals(List.of(), requests(), "failed cycle " + (i + 1) + " within staleAfter");
        }
        assertEquals("6.8.0-45-generic", labels().get(KERNEL_FULL));
        // ...and removed on the next failed cycle, in one patch; the other source's labels stay
        cycle.run();
        assertEquals(1, patches().size());
        l = labels();
        assertNull(l.get(KERNEL_FULL));
        assertEquals("24.04", l.get(OS_VERSION));
        assertEquals("ml", l.get("team.example.com/owner"));

        // the source recovers: labels come back
        write("proc/sys/kernel/osrelease", "6.8.0-47-generic\n");
        cycle.run();
        assertEquals(1, patches().size());
        assertEquals("6.8.0-47-generic", labels().get(KERNEL_FULL));

        // a feature that disappears from a successful discovery is removed at once
        write("etc/os-release", "ID=ubuntu\n");
        cycle.run();
        assertEquals(1, patches().size());
        l = labels();
        assertNull(l.get(OS_VERSION));
        assertEquals("ubuntu", l.get("feature.node.kubernetes.io/system-os_release.ID"));

        // someone edits an owned label: the watch shows it and the next cycle restores it
        admin.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata()
                .addToLabels(KERNEL_FULL, "tampered").endMetadata().build());
        requests();
        for (int i = 0; i < 200 && cycle.run().ok() && "tampered".equals(labels().get(KERNEL_FULL)); i++) {
            Thread.sleep(20);
        }
        assertEquals("6.8.0-47-generic", labels().get(KERNEL_FULL));
        assertEquals("ml", labels().get("team.example.com/owner"));
        if (!admin.nodes().withName(NODE).get().getMetadata().getAnnotations().get("node-labeller.io/managed-labels")
                .contains(KERNEL_FULL)) {
            fail("the restored label must stay owned");
        }
    }
}
