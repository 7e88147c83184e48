package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodelabeller.cli.Cli;
import io.nodelabeller.source.nvidia.DescribedGpuLabels;
import io.nodelabeller.testing.ControlPlane;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GPU Feature Discovery's labels from the NVIDIA DRA driver's ResourceSlices, on the real API server under the
 * two-agent install's policy: on a node the GPU Operator runs in its DRA model the host agent (no NVML) writes them,
 * equal, key for key, to what the GPU agent's NVML gives for the same GPUs (the fake NVML answers for the GPUs the
 * slices describe, shaped as the DRA driver writes them: {@link io.nodelabeller.testing.DraDriver}); they follow the
 * slices (a GPU gone, a driver upgrade, MIG reconfigured, the driver uninstalled); where the GPU agent runs, the
 * slices change nothing it writes; rules match the slices' facts.
 */
class ResourceSliceLabelsTest {

    static final ResourceDefinitionContext SLICES = new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io")
            .withVersion("v1").withPlural("resourceslices").withKind("ResourceSlice").withNamespaced(false).build();

    @TempDir
    Path tmp;

    /** overlays/gpu's install, example.com in its scope (the gpu-server host's features.d labels). */
    private static AdmissionPolicyTest.Installed twoAgents() {
        Map<String, String> annotations = new TreeMap<>(AdmissionPolicyTest.TWO_AGENTS.crb().getMetadata().getAnnotations());
        annotations.put(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "example.com");
        return AdmissionPolicyTest.TWO_AGENTS.withScope(annotations);
    }

    private static KubernetesClient admin() {
        return ServerJudge.shared().admin();
    }

    /** A fresh node {@code node}, labelled {@code labels} by its owners, and the kubeconfig of {@code account} on it. */
    private Path freshNode(String node, String account, Map<String, String> labels) throws Exception {
        ControlPlane cp = ServerJudge.shared().controlPlane();
        admin().nodes().withName(node).delete();
        admin().nodes().withName(node).waitUntilCondition(n -> n == null, 30, java.util.concurrent.TimeUnit.SECONDS);
        Path kc = cp.kubeconfig(Files.createDirectories(tmp.resolve(node + "-" + account)), node,
                cp.podBoundToken("node-labeller", account, node));
        admin().nodes().withName(node).edit(n -> {
            n.getMetadata().getLabels().putAll(labels);
            return n;
        });
        return kc;
    }

    private Path kubeconfig(String node, String account) throws Exception {
        ControlPlane cp = ServerJudge.shared().controlPlane();
        return cp.kubeconfig(Files.createDirectories(tmp.resolve(node + "-" + account)), node,
                cp.podBoundToken("node-labeller", account, node));
    }

    /** Publishes (or replaces) the DRA driver's slice for {@code node} describing {@code nvml}'s GPUs. */
    private static void publish(String node, FakeNvml nvml) {
        GenericKubernetesResource slice = admin().getKubernetesSerialization().convertValue(nvml.resourceSlice(node),
                GenericKubernetesResource.class);
        admin().genericKubernetesResources(SLICES).withName(slice.getMetadata().getName()).delete();
        admin().genericKubernetesResources(SLICES).withName(slice.getMetadata().getName())
                .waitUntilCondition(s -> s == null, 30, java.util.concurrent.TimeUnit.SECONDS);
        admin().genericKubernetesResources(SLICES).resource(slice).create();
    }

    private static void unpublish(String node) {
        admin().genericKubernetesResources(SLICES).withField("spec.nodeName", node).delete();
    }

    private static Cli.Result host(String node, Path kubeconfig, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("once", "--host-root", Hosts.root("gpu-server").toString(),
                "--node-name", node, "--kubeconfig", kubeconfig.toString(), "--instance", "node-labeller", "--no-timestamp"));
        args.addAll(List.of(more));
        return Cli.runWith(Map.of("NODE_LABELLER_ROLE", "host"), args.toArray(String[]::new));
    }

    /** The GPU agent's labels for {@code nvml}'s GPUs on the gpu-server host (its print: NVML's, nothing else). */
    private SortedMap<String, String> gpuAgent(FakeNvml nvml, String migStrategy) {
        Path lib = nvml.install(tmp.resolve("lib-" + System.nanoTime()));
        Cli.Result r = Cli.runWith(Map.of("NODE_LABELLER_ROLE", "gpu"), "print", "--host-root",
                Hosts.root("gpu-server").toString(), "--nvml-library", lib.toString(), "--no-timestamp",
                "--mig-strategy", migStrategy);
        assertEquals(0, r.code(), r.err());
        return r.labels();
    }

    private static SortedMap<String, String> gpuLabels(String node) {
        SortedMap<String, String> out = new TreeMap<>(admin().nodes().withName(node).get().getMetadata().getLabels());
        out.keySet().removeIf(k -> !k.startsWith("nvidia.com/") || k.startsWith("nvidia.com/gpu-operator.")
                || k.startsWith("nvidia.com/gpu.deploy."));
        return out;
    }

    /**
     * The oracle: every key both paths give has one value, and the slices give every key of the GPU agent but those a
     * slice cannot ({@link DescribedGpuLabels#described}) and those of labelers not run from slices.
     */
    private static void assertSameAsNvml(SortedMap<String, String> fromSlices, SortedMap<String, String> fromNvml,
                                         List<String> notFromSlices) {
        TreeSet<String> missing = new TreeSet<>(fromNvml.keySet());
        missing.removeAll(fromSlices.keySet());
        TreeSet<String> expectedMissing = new TreeSet<>();
        fromNvml.keySet().stream().filter(k -> !DescribedGpuLabels.described(k) || notFromSlices.contains(k))
                .forEach(expectedMissing::add);
        assertEquals(expectedMissing, missing, "keys the GPU agent writes that the slices do not give");
        TreeSet<String> extra = new TreeSet<>(fromSlices.keySet());
        extra.removeAll(fromNvml.keySet());
        extra.remove("nvidia.com/gpu.present"); // the host agent's, from the PCI scan
        assertEquals(new TreeSet<>(), extra, "keys from the slices the GPU agent does not write");
        fromSlices.forEach((k, v) -> {
            if (fromNvml.containsKey(k)) {
                assertEquals(fromNvml.get(k), v, k);
            }
        });
    }

    /** What the GPU agent writes from NVML and no slice describes: GFD's labelers not run from slices. */
    static final List<String> NVML_ONLY = List.of("nvidia.com/mig.capable", "nvidia.com/mps.capable",
            "nvidia.com/gpu.machine");

    @Test
    void aDraNodeGetsTheGpuAgentsLabelsFromItsSlicesAndTheyFollowTheSlices() throws Exception {
        ServerJudge.shared().install(twoAgents());
        String node = "rsl-dra-1";
        Path kc = freshNode(node, "node-labeller", Map.of("nvidia.com/gpu-operator.resource-allocation.mode", "dra",
                "nvidia.com/gpu.deploy.dra-driver", "true"));
        FakeNvml eight = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb());
        publish(node, eight);
        // the first cycle on a new node writes gpu.present (PCI): only a GPU node's slices are read, from then on
        Cli.Result present = host(node, kc);
        assertEquals(0, present.code(), present.err());
        assertEquals(Map.of("nvidia.com/gpu.present", "true"), gpuLabels(node));
        assertTrue(present.err().lines().noneMatch(l -> l.contains("ResourceSlice")), present.err());
        Cli.Result first = host(node, kc);
        assertEquals(0, first.code(), first.err());
        assertTrue(first.err().lines().noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR ")), first.err());
        SortedMap<String, String> labels = gpuLabels(node);
        SortedMap<String, String> written = new TreeMap<>(labels);
        assertEquals("8", labels.get("nvidia.com/gpu.count"), labels.toString());
        assertEquals("NVIDIA-A100-SXM4-80GB", labels.get("nvidia.com/gpu.product"));
        assertEquals("81920", labels.get("nvidia.com/gpu.memory"));
        assertSameAsNvml(labels, gpuAgent(eight, "none"), NVML_ONLY);
        // unchanged slices: no write
        Cli.Result again = host(node, kc);
        assertTrue(again.err().lines().noneMatch(l -> l.contains("patched")), again.err());

        // a GPU gone and the driver upgraded
        FakeNvml seven = FakeNvml.nvml().driver("590.48.01").cuda(13010).gpus(7, FakeNvml.a100_80gb());
        publish(node, seven);
        assertEquals(0, host(node, kc).code());
        labels = gpuLabels(node);
        written.putAll(labels);
        assertEquals("7", labels.get("nvidia.com/gpu.count"));
        assertEquals("590", labels.get("nvidia.com/cuda.driver.major"));
        assertEquals("1", labels.get("nvidia.com/cuda.runtime.minor"));
        assertSameAsNvml(labels, gpuAgent(seven, "none"), NVML_ONLY);

        // MIG reconfigured: four GPUs split in 7 × 1g.10gb, four in 3g.40gb + a 1c.4g.40gb compute instance
        FakeNvml.Profiles p = FakeNvml.A100_80GB;
        FakeNvml mig = FakeNvml.nvml();
        for (int i = 0; i < 4; i++) {
            mig.gpu(FakeNvml.a100_80gb().migEnabled().migAll(p.get("1g.10gb"), 7));
        }
        for (int i = 0; i < 4; i++) {
            mig.gpu(FakeNvml.a100_80gb().migEnabled().mig(0, p.get("3g.40gb")).mig(1, p.get("4g.40gb"), 1));
        }
        publish(node, mig);
        assertEquals(0, host(node, kc).code());
        labels = gpuLabels(node);
        assertEquals("28", labels.get("nvidia.com/mig-1g.10gb.count"), labels.toString());
        assertEquals("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb", labels.get("nvidia.com/mig-1g.10gb.product"));
        assertEquals("4", labels.get("nvidia.com/mig-1c.4g.40gb.count"));
        assertTrue(!labels.containsKey("nvidia.com/gpu.memory"), "a MIG-enabled GPU's own memory is not in its slice");
        SortedMap<String, String> nvml = gpuAgent(mig, "mixed");
        List<String> notFromSlices = new java.util.ArrayList<>(NVML_ONLY);
        notFromSlices.addAll(List.of("nvidia.com/gpu.memory", "nvidia.com/gpu.model.NVIDIA-A100-SXM4-80GB.memory",
                "nvidia.com/mig-1c.4g.40gb.multiprocessors"));
        assertSameAsNvml(labels, nvml, notFromSlices);

        // every label the dra labeler documents was written in one of the layouts above, and nothing undocumented
        written.putAll(labels);
        List<io.nodelabeller.label.LabelDoc> docs = new io.nodelabeller.source.dra.DraLabeler().docs();
        assertEquals(List.of(), docs.stream().filter(d -> written.keySet().stream().noneMatch(d::matches))
                .map(io.nodelabeller.label.LabelDoc::key).toList(), "documented, never written");
        assertEquals(List.of(), written.keySet().stream().filter(k -> !k.equals("nvidia.com/gpu.present")
                && docs.stream().noneMatch(d -> d.matches(k))).toList(), "written, not documented");

        // the driver uninstalled: its slices gone, the GPU labels go (gpu.present stays: the PCI scan's)
        unpublish(node);
        Cli.Result gone = host(node, kc);
        assertEquals(0, gone.code(), gone.err());
        assertEquals(Map.of("nvidia.com/gpu.present", "true"), gpuLabels(node));
    }

    /**
     * A ClusterPolicy node where the DRA driver runs beside the device plugin: the GPU agent writes the GPU labels from
     * NVML, and the host agent, which sees the same GPUs in the node's slices, writes none of them, warns about nothing
     * and sends no write after the GPU agent's: one writer, no flapping.
     */
    @Test
    void whereTheGpuAgentRunsTheSlicesChangeNothingItWrites() throws Exception {
        ServerJudge.shared().install(twoAgents());
        String node = "rsl-both-1";
        Path hostKc = freshNode(node, "node-labeller", Map.of("nvidia.com/gpu.deploy.gpu-feature-discovery", "true",
                "nvidia.com/gpu-operator.resource-allocation.mode", "device-plugin"));
        Path gpuKc = kubeconfig(node, "node-labeller-gpu");
        FakeNvml eight = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb());
        Path lib = eight.install(tmp.resolve("lib"));
        publish(node, FakeNvml.nvml().driver("580.159.04").gpus(8, FakeNvml.a100_80gb()));
        assertEquals(0, host(node, hostKc).code()); // gpu.present: a GPU node from now on
        Cli.Result h = host(node, hostKc);
        assertEquals(0, h.code(), h.err());
        assertEquals(Map.of("nvidia.com/gpu.present", "true"), gpuLabels(node));
        Cli.Result g = Cli.runWith(Map.of("NODE_LABELLER_ROLE", "gpu"), "once", "--host-root", Hosts.root("gpu-server").toString(),
                "--nvml-library", lib.toString(), "--node-name", node, "--kubeconfig", gpuKc.toString(),
                "--instance", "node-labeller", "--no-timestamp");
        assertEquals(0, g.code(), g.err());
        SortedMap<String, String> written = gpuLabels(node);
        assertEquals("580.159.04", written.get("nvidia.com/cuda.driver-version.full"));
        for (int i = 0; i < 2; i++) {
            Cli.Result again = host(node, hostKc);
            assertEquals(0, again.code(), again.err());
            assertTrue(again.err().lines().noneMatch(l -> l.contains("patched") || l.contains(" WARN ")), again.err());
            assertEquals(written, gpuLabels(node));
        }

        // the Operator moves the node into its DRA model (the GPU agent's DaemonSet leaves it): the host agent takes the
        // GPU labels over in one admitted write, the values a slice gives unchanged, the others removed
        admin().nodes().withName(node).edit(n -> {
            n.getMetadata().getLabels().put("nvidia.com/gpu-operator.resource-allocation.mode", "dra");
            n.getMetadata().getLabels().remove("nvidia.com/gpu.deploy.gpu-feature-discovery");
            return n;
        });
        Cli.Result takeOver = host(node, hostKc);
        assertEquals(0, takeOver.code(), takeOver.err());
        assertTrue(takeOver.err().lines().noneMatch(l -> l.contains(" WARN ") || l.contains(" 403 ")), takeOver.err());
        SortedMap<String, String> after = gpuLabels(node);
        SortedMap<String, String> expected = new TreeMap<>(written);
        expected.keySet().removeIf(k -> !DescribedGpuLabels.described(k) || NVML_ONLY.contains(k));
        assertEquals(expected, after);
    }

    /**
     * The slices' facts are features in both rule dialects: a custom rule of the worker config matches a GPU's
     * architecture and memory, a NodeFeatureRule object its product name and compute capability.
     */
    @Test
    void rulesMatchTheSlicesFacts() throws Exception {
        ServerJudge.shared().install(twoAgents());
        String node = "rsl-rule-1";
        Path kc = freshNode(node, "node-labeller", Map.of());
        publish(node, FakeNvml.nvml().gpus(2, FakeNvml.h100_80gb()));
        Path config = tmp.resolve("config.yaml");
        Files.writeString(config, """
                sources:
                  custom:
                    - name: hopper-from-dra
                      labels: {"hopper-80g": "true"}
                      matchFeatures:
                        - feature: dra.gpu
                          matchExpressions:
                            architecture: {op: In, value: ["Hopper"]}
                            memory: {op: Gt, value: ["80000000000"]}
                """);
        assertEquals(0, host(node, kc).code()); // gpu.present: a GPU node from now on
        // and nfd-master's dialect: a NodeFeatureRule object on the MIG devices' profile
        ResourceDefinitionContext rules = new ResourceDefinitionContext.Builder().withGroup("nfd.k8s-sigs.io")
                .withVersion("v1alpha1").withPlural("nodefeaturerules").withKind("NodeFeatureRule").withNamespaced(false).build();
        admin().genericKubernetesResources(rules).resource(admin().getKubernetesSerialization().unmarshal("""
                apiVersion: nfd.k8s-sigs.io/v1alpha1
                kind: NodeFeatureRule
                metadata: {name: rsl-hopper-gpus}
                spec:
                  rules:
                    - name: hopper gpus from dra
                      labels: {"hopper-gpus": "two"}
                      matchFeatures:
                        - feature: dra.gpu
                          matchExpressions:
                            productName: {op: In, value: ["NVIDIA H100 80GB HBM3"]}
                            cudaComputeCapability: {op: In, value: ["9.0.0"]}
                """, GenericKubernetesResource.class)).createOr(existing -> existing.update());
        Cli.Result r = host(node, kc, "--config", config.toString());
        admin().genericKubernetesResources(rules).withName("rsl-hopper-gpus").delete();
        assertEquals(0, r.code(), r.err());
        Map<String, String> labels = admin().nodes().withName(node).get().getMetadata().getLabels();
        assertEquals("true", labels.get("feature.node.kubernetes.io/hopper-80g"));
        assertEquals("two", labels.get("feature.node.kubernetes.io/hopper-gpus"));
        // the node is not in the DRA model and a GPU agent is named: no GPU agent label from the slices
        assertEquals(Map.of("nvidia.com/gpu.present", "true"), gpuLabels(node));
        unpublish(node);
    }

    /**
     * The policy holds the two agents to the same rule as their code: on a DRA node the GPU agent may write no GPU
     * label; elsewhere the host agent may write none of the GPU agent's; and neither can make a node a DRA node (the
     * Operator's label is outside every agent's write scope).
     */
    @Test
    void thePolicyLetsOneAgentWriteTheGpuLabelsOfANode() throws Exception {
        ServerJudge.shared().install(twoAgents());
        String dra = "rsl-pol-dra";
        String plain = "rsl-pol-plain";
        Path draGpu = freshNode(dra, "node-labeller-gpu", Map.of("nvidia.com/gpu-operator.resource-allocation.mode", "dra"));
        Path plainHost = freshNode(plain, "node-labeller", Map.of());
        String add = "[{\"op\":\"add\",\"path\":\"/metadata/labels/nvidia.com~1gpu.product\",\"value\":\"X\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"node-labeller.io/managed-labels\":"
                + "\"nvidia.com/gpu.product\"}}]";
        String forge = "[{\"op\":\"add\",\"path\":\"/metadata/labels/nvidia.com~1gpu-operator.resource-allocation.mode\","
                + "\"value\":\"dra\"},{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":"
                + "{\"node-labeller.io/managed-labels\":\"nvidia.com/gpu-operator.resource-allocation.mode\"}}]";
        String addClique = add.replace("gpu.product", "gpu.clique");
        for (Object[] c : new Object[][] {{draGpu, dra, add, "and none on a node in the GPU Operator's DRA model"},
                {kubeconfig(dra, "node-labeller"), dra, addClique, "only the GPU labels a ResourceSlice gives, not: nvidia.com/gpu.clique"},
                {plainHost, plain, add, "may not add, change or keep listed the GPU agent's labels"},
                {plainHost, plain, forge, "may write or list only labels in its write scope"}}) {
            try (KubernetesClient agent = io.nodelabeller.publish.KubernetesClients.create((Path) c[0])) {
                io.fabric8.kubernetes.client.KubernetesClientException e = org.junit.jupiter.api.Assertions.assertThrows(
                        io.fabric8.kubernetes.client.KubernetesClientException.class, () -> agent.nodes().withName((String) c[1])
                                .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                        io.fabric8.kubernetes.client.dsl.base.PatchType.JSON), (String) c[2]));
                assertEquals(403, e.getCode(), e.getMessage());
                assertTrue(e.getMessage().contains((String) c[3]), e.getMessage());
            }
        }
    }

    /**
     * {@code run} on a DRA node, its cycle an hour apart: each change of the node's slices (published, a GPU gone, the
     * driver uninstalled) reaches the node within seconds, through the watch.
     */
    @Test
    void runFollowsTheSlicesThroughItsWatch() throws Exception {
        ServerJudge.shared().install(twoAgents());
        String node = "rsl-run-1";
        Path kc = freshNode(node, "node-labeller", Map.of("nvidia.com/gpu-operator.resource-allocation.mode", "dra",
                "nvidia.com/gpu.present", "true"));
        Process run = Cli.start(tmp.resolve("run.log"), Map.of("NODE_LABELLER_ROLE", "host"), "run", "--host-root",
                Hosts.root("gpu-server").toString(), "--node-name", node, "--kubeconfig", kc.toString(), "--instance",
                "node-labeller", "--no-timestamp", "--config", Files.writeString(tmp.resolve("run.yaml"),
                        "core: {sleepInterval: 1h}\n").toString());
        try {
            awaitLabels(node, l -> l.containsKey("feature.node.kubernetes.io/kernel-version.full"));
            publish(node, FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()));
            awaitLabels(node, l -> "8".equals(l.get("nvidia.com/gpu.count")));
            publish(node, FakeNvml.nvml().gpus(7, FakeNvml.a100_80gb()));
            awaitLabels(node, l -> "7".equals(l.get("nvidia.com/gpu.count")));
            unpublish(node);
            awaitLabels(node, l -> !l.containsKey("nvidia.com/gpu.count"));
        } finally {
            run.destroy();
            run.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        String log = Files.readString(tmp.resolve("run.log"));
        // (a control plane started for this test alone may still be initialising its storage for the CRDs: not ours)
        assertTrue(log.lines().noneMatch(l -> (l.contains(" WARN ") || l.contains(" ERROR "))
                && !l.contains("storage is (re)initializing")), log);
    }

    private static void awaitLabels(String node, java.util.function.Predicate<Map<String, String>> condition)
            throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (condition.test(admin().nodes().withName(node).get().getMetadata().getLabels())) {
                return;
            }
            Thread.sleep(100);
        }
        org.junit.jupiter.api.Assertions.fail("timed out: " + admin().nodes().withName(node).get().getMetadata().getLabels());
    }
}
