package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodelabeller.testing.ClusterObjects;
import io.nodelabeller.testing.ControlPlane;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code run}, as overlays/gpu's two DaemonSet pods run it (the host agent and the GPU agent, each its service
 * account's pod-bound token, the install's RBAC and admission policy, NFD's CRDs), through a restart of a real
 * kube-apiserver: the restarted server's watch cache starts anew, so the agents' watches come back to it from a
 * resource version it may no longer serve. They keep every label through the outage, the host agent takes a
 * NodeFeatureRule change made after the server's return with one patch, they log no ERROR and no stack trace, and
 * stop on SIGTERM with exit 0. Without NFD's CRDs (a cluster that never had
 * NFD) {@code once} and {@code run} label the node all the same and say once, as information, that there are no
 * NodeFeatureRule objects to read.
 */
class ServerRestartTest {

    private static final String NODE = "restart-1";
    private static final String RULE_LABEL = "feature.node.kubernetes.io/rule-version";
    private static final ResourceDefinitionContext RULES = new ResourceDefinitionContext.Builder().withGroup("nfd.k8s-sigs.io")
            .withVersion("v1alpha1").withPlural("nodefeaturerules").withKind("NodeFeatureRule").withNamespaced(false).build();

    @TempDir
    Path tmp;

    private ControlPlane cp;
    private Process run;
    private Process runGpu;

    @AfterEach
    void stop() {
        if (run != null) {
            run.destroyForcibly();
        }
        if (runGpu != null) {
            runGpu.destroyForcibly();
        }
        if (cp != null) {
            cp.stop();
        }
    }

    private Map<String, String> labels() {
        return new TreeMap<>(cp.admin().nodes().withName(NODE).get().getMetadata().getLabels());
    }

    private void await(Predicate<Map<String, String>> done, Duration limit) throws Exception {
        long end = System.nanoTime() + limit.toNanos();
        while (true) {
            try {
                if (done.test(labels())) {
                    return;
                }
            } catch (RuntimeException e) {
                // the server is not back yet
            }
            assertTrue(System.nanoTime() < end, "not within " + limit + "\n" + Files.readString(tmp.resolve("run.log")));
            assertTrue(run.isAlive(), Files.readString(tmp.resolve("run.log")));
            Thread.sleep(200);
        }
    }

    private void putRule(String version) {
        GenericKubernetesResource rule = cp.admin().getKubernetesSerialization().unmarshal(
                ClusterObjects.everyNodeRule("restart-rule", RULE_LABEL, version), GenericKubernetesResource.class);
        cp.admin().genericKubernetesResources(RULES).resource(rule).fieldManager("kubectl").forceConflicts().serverSideApply();
    }

    @Test
    void theAgentsKeepTheirLabelsThroughARestartAndTakeTheNextChange() throws Exception {
        String lib = io.nodelabeller.testing.FakeNvml.nvml().gpus(8, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("lib")).toString();
        cp = ControlPlane.start(null);
        KubernetesClient admin = cp.admin();
        List<String> refused = new ArrayList<>();
        ServerManifestsTest.applyNfdCrds(admin, refused);
        List<HasMetadata> install = Manifests.render("overlays/gpu").stream().filter(o -> !o.getKind().equals("DaemonSet"))
                .toList();
        ServerManifestsTest.apply(admin, "overlays/gpu", install, refused);
        assertEquals(List.of(), refused);
        putRule("v1");
        Path kubeconfig = cp.kubeconfig(tmp, "agent", cp.podBoundToken("node-labeller", "node-labeller", NODE));
        Path gpuKubeconfig = cp.kubeconfig(tmp, "agent-gpu", cp.podBoundToken("node-labeller", "node-labeller-gpu", NODE));
        Path cfg = config("config.yaml", "publish: {ruleChangeSpread: 0s}");
        run = io.nodelabeller.cli.Cli.start(tmp.resolve("run.log"), Map.of("NODE_LABELLER_ROLE", "host"), "run",
                "--node-name", NODE, "--kubeconfig", kubeconfig.toString(), "--config", cfg.toString(), "--instance",
                "node-labeller", "--host-root", Hosts.root("gpu-server").toString(), "--sources", "system,kernel");
        runGpu = io.nodelabeller.cli.Cli.start(tmp.resolve("run-gpu.log"), Map.of("NODE_LABELLER_ROLE", "gpu"), "run",
                "--node-name", NODE, "--kubeconfig", gpuKubeconfig.toString(), "--config",
                config("config-gpu.yaml", "").toString(), "--instance", "node-labeller", "--host-root",
                Hosts.root("gpu-server").toString(), "--nvml-library", lib, "--no-timestamp");

        await(l -> "v1".equals(l.get(RULE_LABEL)) && "NVIDIA-A100-SXM4-80GB".equals(l.get("nvidia.com/gpu.product")),
                Duration.ofSeconds(60));
        Thread.sleep(3_000); // at rest
        Map<String, String> before = labels();
        assertTrue(before.containsKey("feature.node.kubernetes.io/kernel-version.full"), before.toString());
        String version = admin.nodes().withName(NODE).get().getMetadata().getResourceVersion();

        cp.restartApiServer(); // down about as long as it takes to start (a few seconds), cycles refused meanwhile
        Thread.sleep(3_000);
        assertEquals(before, labels(), "no label lost through the outage");
        assertEquals(version, admin.nodes().withName(NODE).get().getMetadata().getResourceVersion(), "nothing written");

        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        try (var watch = admin.nodes().withName(NODE).watch(new io.fabric8.kubernetes.client.Watcher<>() {
            @Override
            public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Node node) {
                if (action == Action.MODIFIED) {
                    writes.incrementAndGet();
                }
            }

            @Override
            public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {
            }
        })) {
            putRule("v2");
            await(l -> "v2".equals(l.get(RULE_LABEL)), Duration.ofSeconds(60));
            Thread.sleep(3_000);
        }
        before.put(RULE_LABEL, "v2");
        assertEquals(before, labels(), "no label lost or changed but the rule's");
        assertEquals(1, writes.get(), "one patch: the changed rule's label");

        for (Process p : List.of(run, runGpu)) {
            p.destroy(); // SIGTERM
        }
        for (Process p : List.of(run, runGpu)) {
            String out = Files.readString(tmp.resolve(p == run ? "run.log" : "run-gpu.log"));
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends run: " + out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("too old resource version"), "the node's watch came back to a 410 (else this test did"
                    + " not see what it is about): " + out);
            assertTrue(out.lines().noneMatch(l -> l.contains(" ERROR ") || l.startsWith("\tat ") || l.contains("Exception")),
                    out);
        }
    }

    /** A config file: one-second cycles, a free port for the endpoints, and {@code extra} (YAML lines). */
    private Path config(String name, String extra) throws java.io.IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        return Files.writeString(tmp.resolve(name), "core: {sleepInterval: 1s}\ndaemon: {port: %d}\n%s\n".formatted(port, extra));
    }

    /**
     * A cluster without NFD's CRDs: the base install as shipped, the agent's pod-bound token; {@code once} and
     * {@code run} write the node's labels, log the missing CRD once as information, and no WARN or ERROR.
     */
    @Test
    void withoutNfdsCrdsOnceAndRunLabelTheNode() throws Exception {
        cp = ControlPlane.start(null);
        List<String> refused = new ArrayList<>();
        List<HasMetadata> install = Manifests.render("base").stream().filter(o -> !o.getKind().equals("DaemonSet")).toList();
        ServerManifestsTest.apply(cp.admin(), "base", install, refused);
        assertEquals(List.of(), refused);
        Path kubeconfig = cp.kubeconfig(tmp, "agent", cp.podBoundToken("node-labeller", "node-labeller", NODE));
        String[] common = {"--node-name", NODE, "--kubeconfig", kubeconfig.toString(), "--instance", "node-labeller",
                "--host-root", Hosts.root("gpu-server").toString(), "--sources", "system,kernel"};

        io.nodelabeller.cli.Cli.Result once = io.nodelabeller.cli.Cli.run(concat("once", common));
        assertEquals(0, once.code(), once.err());
        assertTrue(labels().containsKey("feature.node.kubernetes.io/kernel-version.full"), labels().toString());
        assertNoCrdSaidOnceAndNothingWorse(once.err());

        Path cfg = config("config.yaml", "");
        cp.admin().nodes().withName(NODE).edit(n -> {
            n.getMetadata().getLabels().remove("feature.node.kubernetes.io/kernel-version.full");
            return n;
        });
        run = io.nodelabeller.cli.Cli.start(tmp.resolve("run.log"), concat("run", concat("--config=" + cfg, common)));
        await(l -> l.containsKey("feature.node.kubernetes.io/kernel-version.full"), Duration.ofSeconds(60));
        Thread.sleep(3_000); // a few cycles
        run.destroy();
        assertTrue(run.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends run");
        String out = Files.readString(tmp.resolve("run.log"));
        assertEquals(0, run.exitValue(), out);
        assertNoCrdSaidOnceAndNothingWorse(out);
    }

    private static void assertNoCrdSaidOnceAndNothingWorse(String log) {
        List<String> said = log.lines().filter(l -> l.contains("the CRD nodefeaturerules.nfd.k8s-sigs.io is not installed"))
                .toList();
        assertEquals(1, said.size(), log);
        assertTrue(said.get(0).contains(" INFO "), said.get(0));
        assertTrue(log.lines().noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.startsWith("\tat ")), log);
    }

    private static String[] concat(String first, String... rest) {
        String[] out = new String[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}
