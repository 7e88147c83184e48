package io.nodelabeller.cli;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** run, once and prune on the command line: exit codes and what they refuse. */
class DaemonCommandsTest {

    @TempDir
    Path tmp;

    private Path config(String yaml) throws Exception {
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, yaml);
        return cfg;
    }

    private String host() {
        return Hosts.root("cloud-vm").toString();
    }

    @Test
    void onceWritesTheFeaturesFileAndExitsZero() throws Exception {
        Path out = tmp.resolve("node-labeller.features");
        Path cfg = config("publish:\n  node: false\n  featuresFile: " + out + "\n");
        Cli.Result r = Cli.run("once", "--config", cfg.toString(), "--host-root", host());
        assertEquals(0, r.code(), r.err());
        String content = Files.readString(out);
        assertTrue(content.contains("feature.node.kubernetes.io/kernel-version.major="), content);
        assertEquals(Cli.run("print", "--host-root", host()).out(),
                content.substring(content.indexOf('\n') + 1), "the file holds exactly what print shows");
    }

    /**
     * publish.featuresFile is a path of the agent's file system; the local source must recognise that file under
     * --host-root too and not read it back. It once did not: repeated runs flipped the file between its full
     * content and the header alone.
     */
    @Test
    void repeatedOnceRunsKeepTheFeaturesFileUnderTheHostRoot() throws Exception {
        Path root = tmp.resolve("host");
        Files.createDirectories(root.resolve("proc/sys/kernel"));
        Files.writeString(root.resolve("proc/sys/kernel/osrelease"), "5.15.0-91-generic\n");
        Path featuresD = Files.createDirectories(root.resolve("etc/kubernetes/node-feature-discovery/features.d"));
        Files.writeString(featuresD.resolve("team"), "team=ml\n");
        Path out = featuresD.resolve("node-labeller");
        Path cfg = config("publish:\n  node: false\n  featuresFile: " + out + "\n");
        List<String> contents = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Cli.Result r = Cli.run("once", "--config", cfg.toString(), "--host-root", root.toString(),
                    "--sources", "kernel,local");
            assertEquals(0, r.code(), r.err());
            contents.add(Files.readString(out));
        }
        assertTrue(contents.get(0).contains("feature.node.kubernetes.io/kernel-version.full=5.15.0-91-generic\n"),
                contents.get(0));
        assertFalse(contents.get(0).contains("team="), "labels from features.d files are not written back");
        assertEquals(List.of(contents.get(0), contents.get(0), contents.get(0)), contents);
        // and print on that host shows the local label once, next to the kernel's
        String printed = Cli.run("print", "--config", cfg.toString(), "--host-root", root.toString(),
                "--sources", "kernel,local").out();
        assertTrue(printed.contains("feature.node.kubernetes.io/team=ml"), printed);
    }

    @Test
    void onceExitsOneWhenAnOutputFails() throws Exception {
        Path out = tmp.resolve("no-such-dir").resolve("features");
        Path cfg = config("publish:\n  node: false\n  featuresFile: " + out + "\n");
        Cli.Result r = Cli.run("once", "--config", cfg.toString(), "--host-root", host());
        assertEquals(1, r.code());
        assertTrue(r.err().contains("node-labeller once: features-file: cannot write " + out), r.err());
    }

    @Test
    void usageProblemsExitTwo() throws Exception {
        Path cfg = config("publish:\n  node: false\n");
        Cli.Result none = Cli.run("once", "--config", cfg.toString());
        assertEquals(2, none.code());
        assertTrue(none.err().contains("nothing to publish"), none.err());

        Path bad = config("publish:\n  staleAfter: never\n");
        assertEquals(2, Cli.run("run", "--config", bad.toString()).code());
        assertEquals(2, Cli.run("once", "--sources", "nosuch").code());
    }

    @Test
    void aNodeNameIsRequiredToPublishToKubernetes() {
        for (String cmd : new String[] {"run", "once", "prune"}) {
            Cli.Result r = Cli.run(cmd, "--host-root", host());
            assertEquals(2, r.code(), cmd);
            assertTrue(r.err().contains("no node name: set --node-name or the NODE_NAME environment variable"),
                    cmd + ": " + r.err());
        }
    }

    private static GenericKubernetesResource nodeFeature(KubernetesClient client, String namespace, String name) {
        return client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withKind("NodeFeature")
                .withPlural("nodefeatures").withNamespaced(true).build()).inNamespace(namespace).withName(name).get();
    }

    /** A kubeconfig file pointing at {@code client}'s (mock) server. */
    private Path kubeconfigFor(KubernetesClient client) throws Exception {
        return TestKubeconfig.write(tmp, client.getMasterUrl().toString());
    }

    private static KubernetesMockServer crudServer() {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new io.nodelabeller.testing.NodeCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }

    @Test
    void oncePatchesTheNodeARestartWithAFailingSourceRemovesNothingAndPruneCleansUp() throws Exception {
        KubernetesMockServer server = crudServer();
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("worker-1")
                    .addToLabels("team", "ml").addToAnnotations("owner", "équipe")
                    .endMetadata().build()).create();
            String kubeconfig = kubeconfigFor(client).toString();

            Cli.Result first = Cli.run("once", "--host-root", host(), "--node-name", "worker-1",
                    "--kubeconfig", kubeconfig);
            assertEquals(0, first.code(), first.err());
            Node node = client.nodes().withName("worker-1").get();
            String kernel = node.getMetadata().getLabels().get("feature.node.kubernetes.io/kernel-version.full");
            assertTrue(kernel != null && !kernel.isEmpty(), node.getMetadata().getLabels().toString());
            assertEquals("ml", node.getMetadata().getLabels().get("team"));
            assertTrue(node.getMetadata().getAnnotations().get("node-labeller.io/managed-labels")
                    .contains("feature.node.kubernetes.io/kernel-version.full"));

            // a new process whose kernel source fails (no osrelease under this root) keeps the kernel labels
            Path empty = Files.createDirectories(tmp.resolve("empty-host"));
            Cli.Result restart = Cli.run("once", "--host-root", empty.toString(), "--sources", "kernel",
                    "--node-name", "worker-1", "--kubeconfig", kubeconfig);
            assertEquals(0, restart.code(), restart.err());
            node = client.nodes().withName("worker-1").get();
            assertEquals(kernel, node.getMetadata().getLabels().get("feature.node.kubernetes.io/kernel-version.full"));

            Cli.Result prune = Cli.run("prune", "--node-name", "worker-1", "--kubeconfig", kubeconfig);
            assertEquals(0, prune.code(), prune.err());
            node = client.nodes().withName("worker-1").get();
            assertEquals(Map.of("team", "ml"), node.getMetadata().getLabels());
            assertEquals(Map.of("owner", "équipe"), node.getMetadata().getAnnotations());
        } finally {
            server.destroy();
        }
    }

    /** once publishes one cycle and exits: it reads and patches its node, and opens no watch on it (run does). */
    @Test
    void onceReadsAndPatchesItsNodeWithoutWatchingIt() throws Exception {
        KubernetesMockServer server = crudServer();
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("worker-3").endMetadata().build()).create();
            while (server.takeRequest(50, TimeUnit.MILLISECONDS) != null) {
                // the test's own create
            }
            Cli.Result r = Cli.run("once", "--host-root", host(), "--node-name", "worker-3",
                    "--kubeconfig", kubeconfigFor(client).toString());
            assertEquals(0, r.code(), r.err());
            List<String> requests = new ArrayList<>();
            for (var q = server.takeRequest(200, TimeUnit.MILLISECONDS); q != null; q = server.takeRequest(200, TimeUnit.MILLISECONDS)) {
                requests.add(q.getMethod() + " " + q.getPath());
            }
            assertTrue(requests.stream().anyMatch(q -> q.startsWith("PATCH /api/v1/nodes/worker-3")), requests.toString());
            assertTrue(requests.stream().noneMatch(q -> q.contains("watch=true")), "no watch: " + requests);
        } finally {
            server.destroy();
        }
    }

    @Test
    void onceWritesTheNodeFeatureThroughTheGivenKubeconfig() throws Exception {
        KubernetesMockServer server = crudServer();
        try (KubernetesClient client = server.createClient()) {
            Path kubeconfig = kubeconfigFor(client);
            Path cfg = config("publish:\n  node: false\n  nodeFeature:\n    enabled: true\n    namespace: nfd\n");
            Cli.Result r = Cli.run("once", "--config", cfg.toString(), "--host-root", host(),
                    "--node-name", "worker-7", "--kubeconfig", kubeconfig.toString());
            assertEquals(0, r.code(), r.err());
            GenericKubernetesResource nf = nodeFeature(client, "nfd", "worker-7");
            assertEquals("worker-7", nf.getMetadata().getLabels().get("nfd.node.kubernetes.io/node-name"));
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) ((Map<String, Object>) nf.getAdditionalProperties()
                    .get("spec")).get("labels");
            assertTrue(labels.containsKey("feature.node.kubernetes.io/kernel-version.major"), labels.toString());
        } finally {
            server.destroy();
        }
    }

    /**
     * nfd-compat with two agents: the host agent's NodeFeature is named after the node, the GPU agent's as GPU Feature
     * Discovery names its own, and carries GFD's labels only; the GPU agent writes no features.d file (the host
     * agent's).
     */
    @Test
    void theGpuAgentPublishesItsOwnNodeFeatureBesideTheHostAgents() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(io.nodelabeller.testing.FakeNvml.built(
                io.nodelabeller.testing.FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        Path lib = io.nodelabeller.testing.FakeNvml.nvml().gpus(8, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("lib"));
        KubernetesMockServer server = crudServer();
        try (KubernetesClient client = server.createClient()) {
            Path kubeconfig = kubeconfigFor(client);
            Path features = Files.createDirectories(tmp.resolve("features.d")).resolve("node-labeller");
            Path cfg = config("publish:\n  node: false\n  featuresFile: " + features + "\n  nodeFeature:\n    enabled: true\n");
            for (String role : List.of("host", "gpu")) {
                Cli.Result r = Cli.runWith(Map.of("NODE_NAME", "dgx-1", "POD_NAMESPACE", "node-labeller", "NODE_LABELLER_ROLE", role,
                                "POD_NAME", "node-labeller-" + role + "-x7k2p", "POD_UID", "0b1e6a52-6f3e-4a57-9a8c-3c1d2f1a9e0" + role.length()),
                        "once", "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString(),
                        "--nvml-library", lib.toString(), "--kubeconfig", kubeconfig.toString());
                assertEquals(0, r.code(), role + ": " + r.err());
                if (role.equals("host")) {
                    assertTrue(Files.readString(features).contains("nvidia.com/gpu.present=true"));
                    Files.delete(features);
                }
            }
            assertFalse(Files.exists(features), "the GPU agent writes no features.d file");
            Map<String, String> host = specLabels(nodeFeature(client, "node-labeller", "dgx-1"));
            GenericKubernetesResource gpuObject = nodeFeature(client, "node-labeller", "node-labeller-gpu-dgx-1");
            assertEquals("dgx-1", gpuObject.getMetadata().getLabels().get("nfd.node.kubernetes.io/node-name"));
            Map<String, String> gpu = specLabels(gpuObject);
            assertEquals("true", host.get("nvidia.com/gpu.present"));
            assertFalse(host.containsKey("nvidia.com/gpu.product"));
            assertEquals("NVIDIA-A100-SXM4-80GB", gpu.get("nvidia.com/gpu.product"));
            assertTrue(gpu.keySet().stream().allMatch(k -> k.startsWith("nvidia.com/") && !k.equals("nvidia.com/gpu.present")),
                    gpu.toString());
            // nfd-master appends the instances of a node's objects: the PCI devices are in the host agent's object only
            assertTrue(featureKeys(gpuObject).stream().allMatch(k -> k.startsWith("nvidia.")), featureKeys(gpuObject).toString());
            assertTrue(featureKeys(gpuObject).contains("nvidia.gpu"), featureKeys(gpuObject).toString());
            assertTrue(featureKeys(nodeFeature(client, "node-labeller", "dgx-1")).contains("pci.device"));
        } finally {
            server.destroy();
        }
    }

    /** The feature keys of every kind in a NodeFeature's spec.features. */
    @SuppressWarnings("unchecked")
    private static java.util.Set<String> featureKeys(GenericKubernetesResource nf) {
        Map<String, Object> features = (Map<String, Object>) ((Map<String, Object>) nf.getAdditionalProperties().get("spec"))
                .get("features");
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (String kind : List.of("flags", "attributes", "instances")) {
            Object m = features.get(kind);
            if (m instanceof Map<?, ?> map) {
                map.keySet().forEach(k -> out.add(String.valueOf(k)));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> specLabels(GenericKubernetesResource nf) {
        return (Map<String, String>) ((Map<String, Object>) nf.getAdditionalProperties().get("spec")).get("labels");
    }

    /** The downward API's variables, as the DaemonSet sets them, reach the outputs through the command line alone. */
    @Test
    void theEnvironmentNamesTheNodeThePodAndTheNamespace() throws Exception {
        KubernetesMockServer server = crudServer();
        try (KubernetesClient client = server.createClient()) {
            Path kubeconfig = kubeconfigFor(client);
            Path cfg = config("core:\n  ownerRefs: [pod]\npublish:\n  node: false\n  nodeFeature:\n    enabled: true\n");
            Cli.Result r = Cli.runWith(Map.of("NODE_NAME", "worker-3", "POD_NAMESPACE", "gpu-infra",
                            "POD_NAME", "node-labeller-x7k2p", "POD_UID", "0b1e6a52-6f3e-4a57-9a8c-3c1d2f1a9e01"),
                    "once", "--config", cfg.toString(), "--host-root", host(), "--kubeconfig", kubeconfig.toString());
            assertEquals(0, r.code(), r.err());
            GenericKubernetesResource nf = nodeFeature(client, "gpu-infra", "worker-3");
            assertEquals("worker-3", nf.getMetadata().getLabels().get("nfd.node.kubernetes.io/node-name"));
            assertEquals(List.of("node-labeller-x7k2p/0b1e6a52-6f3e-4a57-9a8c-3c1d2f1a9e01"),
                    nf.getMetadata().getOwnerReferences().stream().map(o -> o.getName() + "/" + o.getUid()).toList());
        } finally {
            server.destroy();
        }
    }

    @Test
    void noPublishNeedsNoNodeNameNorClusterAndStillWritesTheFeaturesFile() throws Exception {
        // a kubeconfig that cannot be read: building a client from it, or sending a request, would fail the command
        Path kubeconfig = tmp.resolve("broken-kubeconfig");
        Files.writeString(kubeconfig, "this is not a kubeconfig");
        Path cfg = config("core:\n  noPublish: true\npublish:\n  nodeFeature:\n    enabled: true\n");
        Cli.Result dry = Cli.run("once", "--config", cfg.toString(), "--host-root", host(),
                "--node-name", "", "--kubeconfig", kubeconfig.toString());
        assertEquals(0, dry.code(), dry.err());
        assertTrue(dry.err().contains("core.noPublish: nothing written to Kubernetes; "), dry.err());

        Path out = tmp.resolve("node-labeller.features");
        Path withFile = config("core:\n  noPublish: true\npublish:\n  featuresFile: " + out + "\n");
        Cli.Result r = Cli.run("once", "--config", withFile.toString(), "--host-root", host(),
                "--node-name", "", "--kubeconfig", kubeconfig.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.readString(out).contains("feature.node.kubernetes.io/kernel-version.full="),
                "the features.d file is not Kubernetes: still written");
    }

    /** The client is built beside the rest of the set-up; when it cannot be, once fails naming the kubeconfig, as before. */
    @Test
    void aKubeconfigThatCannotBeReadFailsOnceNamingIt() throws Exception {
        Path kubeconfig = tmp.resolve("broken-kubeconfig");
        Files.writeString(kubeconfig, "this is not a kubeconfig");
        Cli.Result r = Cli.run("once", "--host-root", host(), "--node-name", "worker-2", "--kubeconfig",
                kubeconfig.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("node-labeller once: cannot set up the Kubernetes client from " + kubeconfig + ": "),
                r.err());
    }

    @Test
    void noPublishWritesNothingToTheCluster() throws Exception {
        KubernetesMockServer server = crudServer();
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("worker-9").endMetadata().build())
                    .create();
            Path cfg = config("core:\n  noPublish: true\n");
            Cli.Result r = Cli.run("once", "--config", cfg.toString(), "--host-root", host(),
                    "--node-name", "worker-9", "--kubeconfig", kubeconfigFor(client).toString());
            assertEquals(0, r.code(), r.err());
            Node node = client.nodes().withName("worker-9").get();
            assertTrue(node.getMetadata().getLabels() == null || node.getMetadata().getLabels().isEmpty(),
                    String.valueOf(node.getMetadata().getLabels()));
        } finally {
            server.destroy();
        }
    }
}
