package io.nodelabeller.daemon;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.config.Role;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.publish.Bookkeeping;
import io.nodelabeller.publish.Install;
import io.nodelabeller.publish.KubernetesClients;
import io.nodelabeller.publish.NodePatch;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.Part;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.ServerRequests;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The host agent ({@code --role host}) and the GPU agent ({@code --role gpu}) of one install on one GPU node, each a
 * real cycle (real sources on a copy of the DGX A100 host tree, the fake libnvidia-ml, retention, the Node publisher)
 * against fabric8's mock API server in CRUD mode, through what GPU nodes go through: an install upgraded from one
 * agent to two, a kernel upgrade whose driver is not there yet (the GPU Operator builds it for the new kernel after the
 * host labels say which: the sequence that deadlocks when one agent that needs the nvidia runtime writes both), the
 * driver coming back, and the GPUs taken out.
 */
class TwoAgentsOnAGpuNodeTest {

    private static final String NODE = "dgx-07";
    private static final String KERNEL = "feature.node.kubernetes.io/kernel-version.full";

    @TempDir
    Path dir;

    private Path host;
    private Path lib;
    private KubernetesMockServer server;
    private KubernetesClient admin;
    private final List<KubernetesClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        host = Hosts.copy("gpu-server", dir.resolve("host"));
        lib = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()).install(dir.resolve("lib"));
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new io.nodelabeller.testing.NodeCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = server.createClient();
        admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("kubernetes.io/hostname", NODE)
                .addToLabels("nvidia.com/gpu.deploy.driver", "true") // the GPU Operator's own: never touched
                .endMetadata().build()).create();
    }

    @AfterEach
    void stop() {
        clients.forEach(KubernetesClient::close);
        if (admin != null) {
            admin.close();
            server.destroy();
        }
    }

    /** One agent as {@code run} starts it: its part of the install, its retention seeded from the node. */
    private Cycle agent(Role role) throws Exception {
        KubernetesClient client = KubernetesClients.create(TestKubeconfig.write(dir, server.url("/")), Duration.ofSeconds(5));
        clients.add(client);
        Part part = role == Role.ALL ? Part.ALL : new Part(role, Catalog.gpuLabel(), true, Catalog.sliceLabel());
        NodePublisher publisher = new NodePublisher(client, NODE, NodePublisher.Settings.defaults(), PublishEvents.NONE,
                Install.unchecked(Bookkeeping.DEFAULT), part);
        Options options = new Options(host, lib.toString(), null, true, null, NODE, role);
        List<String> sources = List.of("kernel", "system", "pci", "nvidia");
        Retention retention = Retention.initial(3);
        for (var e : publisher.ownedOutputs().entrySet()) {
            retention = retention.withPrevious(e.getKey(), e.getValue());
        }
        return new Cycle(new Discovery(new HostFs(host), Catalog.sources(Config.DEFAULT, options, sources)),
                new Labelling(Catalog.labelers(Config.DEFAULT, options, sources), Catalog.labelValidity(Config.DEFAULT.core()),
                        null, java.util.EnumSet.of(LabelSet.Kind.LABEL)),
                retention, List.of(publisher), new Metrics(), Clock.systemUTC());
    }

    private Map<String, String> labels() {
        Node n = admin.nodes().withName(NODE).get();
        return new TreeMap<>(n.getMetadata().getLabels());
    }

    private TreeSet<String> listed() {
        return new TreeSet<>(NodePatch.owned(admin.nodes().withName(NODE).get().getMetadata().getAnnotations(), NodePatch.MANAGED_ANNOTATION));
    }

    private long patches() {
        return ServerRequests.drain(server, 200).stream().filter(r -> r.startsWith("PATCH")).count();
    }

    private static Map<String, String> gpuAgentLabels(Map<String, String> labels) {
        Part gpu = new Part(Role.GPU, Catalog.gpuLabel(), true, Catalog.sliceLabel());
        Map<String, String> out = new TreeMap<>(labels);
        out.keySet().removeIf(k -> !gpu.gpuAgentKey(k));
        return out;
    }

    @Test
    void hostLabelsNeverWaitForTheGpuStackAndNoLabelIsDroppedOnTheWay() throws Exception {
        // an install of the earlier layout: one agent wrote everything
        agent(Role.ALL).run();
        Map<String, String> before = labels();
        assertEquals("NVIDIA-A100-SXM4-80GB", before.get("nvidia.com/gpu.product"));
        assertTrue(before.containsKey(KERNEL));
        TreeSet<String> listedBefore = listed();
        patches();

        // upgraded to two agents: each takes its part as the node has it; nothing is sent, nothing moves
        Cycle hostAgent = agent(Role.HOST);
        Cycle gpuAgent = agent(Role.GPU);
        for (int i = 0; i < 2; i++) {
            hostAgent.run();
            gpuAgent.run();
        }
        assertEquals(0, patches(), "the hand-over from one agent to two writes nothing");
        assertEquals(before, labels());
        assertEquals(listedBefore, listed());

        // a kernel upgrade; the driver for the new kernel is not there yet (NVML: driver not loaded)
        Files.writeString(host.resolve("proc/sys/kernel/osrelease"), "6.8.0-60-generic\n");
        FakeNvml.nvml().rc("nvmlInit_v2", 9).gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        hostAgent.run();
        assertEquals("6.8.0-60-generic", labels().get(KERNEL), "the host agent needs no GPU stack");
        assertEquals(gpuAgentLabels(before), gpuAgentLabels(labels()), "and leaves the GPU labels alone");
        assertEquals("true", labels().get("nvidia.com/gpu.present"));
        patches();
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(
                io.nodelabeller.source.nvidia.NvidiaLabeler.class)) {
            for (int i = 0; i < 3; i++) {
                gpuAgent.run();
                hostAgent.run();
            }
            List<String> warned = log.messages(ch.qos.logback.classic.Level.WARN);
            assertEquals(List.of("NVML unavailable: nvmlInit_v2 failed: 9 (Driver Not Loaded); GPU Feature Discovery's"
                    + " labels are omitted"), warned, "one line from the GPU agent, none from the host agent");
        }
        assertEquals(0, patches(), "the GPU agent keeps its labels for staleAfter failed cycles");
        assertEquals(gpuAgentLabels(before), gpuAgentLabels(labels()));

        // the driver for the new kernel comes up, a newer one
        FakeNvml.nvml().driver("580.200.01").gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        gpuAgent.run();
        Map<String, String> after = labels();
        assertEquals("580.200.01", after.get("nvidia.com/cuda.driver-version.full"));
        assertEquals("6.8.0-60-generic", after.get(KERNEL));
        assertEquals("true", after.get("nvidia.com/gpu.deploy.driver"), "the Operator's label untouched");
        hostAgent.run();
        assertEquals(after, labels(), "neither undoes the other's change");
        TreeSet<String> everything = new TreeSet<>(after.keySet());
        everything.removeAll(List.of("kubernetes.io/hostname", "nvidia.com/gpu.deploy.driver"));
        assertEquals(everything, listed(), "one list for the install, both parts in it");

        // the GPUs are taken out of the node: no GPU agent runs there any more; the host agent removes the GPU labels
        try (var devices = Files.list(host.resolve("sys/bus/pci/devices"))) {
            for (Path d : devices.toList()) {
                if (Files.readString(d.resolve("vendor")).trim().equals("0x10de")) {
                    try (var walk = Files.walk(d)) {
                        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                    }
                }
            }
        }
        hostAgent.run();
        Map<String, String> gone = labels();
        assertFalse(gone.keySet().stream().anyMatch(k -> k.startsWith("nvidia.com/") && !k.equals("nvidia.com/gpu.deploy.driver")),
                gone.toString());
        assertTrue(gone.containsKey(KERNEL));
        assertFalse(listed().stream().anyMatch(k -> k.startsWith("nvidia.com/")), listed().toString());
    }

    /** The GPU agent alone (its pod came first, or the host agent is down) writes only GPU labels and removes none of the host's. */
    @Test
    void theGpuAgentTouchesNothingButItsOwnLabels() throws Exception {
        agent(Role.ALL).run();
        Map<String, String> before = labels();
        Files.writeString(host.resolve("proc/sys/kernel/osrelease"), "6.8.0-60-generic\n");
        FakeNvml.nvml().driver("580.200.01").gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        agent(Role.GPU).run();
        Map<String, String> after = labels();
        assertEquals(before.get(KERNEL), after.get(KERNEL), "the kernel label is the host agent's");
        assertEquals("580.200.01", after.get("nvidia.com/cuda.driver-version.full"));
        Map<String, String> hostPart = new TreeMap<>(after);
        hostPart.keySet().removeIf(k -> new Part(Role.GPU, Catalog.gpuLabel(), true, Catalog.sliceLabel()).gpuAgentKey(k));
        Map<String, String> hostBefore = new TreeMap<>(before);
        hostBefore.keySet().removeIf(k -> new Part(Role.GPU, Catalog.gpuLabel(), true, Catalog.sliceLabel()).gpuAgentKey(k));
        assertEquals(hostBefore, hostPart);
    }
}
