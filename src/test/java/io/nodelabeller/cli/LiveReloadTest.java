package io.nodelabeller.cli;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.testing.ConfigMapVolume;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code run} as a process (sleepInterval 60 s) against the fabric8 mock API server in CRUD mode, while its
 * config, custom.d and features.d change as Kubernetes changes them ({@link ConfigMapVolume}): every change
 * reaches the node long before the next scheduled cycle; an invalid config keeps the last good one.
 */
class LiveReloadTest {

    private static final String PREFIX = "feature.node.kubernetes.io/";

    @TempDir
    Path tmp;

    private KubernetesClient client;

    private static String config(int port, Path customD, String label) {
        return """
                core: {sleepInterval: 60s, customRulesDir: "%s"}
                daemon: {port: %d, runtimeMetrics: true}
                sources:
                  custom:
                    - name: live
                      labels: {live: "%s"}
                """.formatted(customD, port, label);
    }

    private KubernetesMockServer server;
    private Process run;
    private Path log;

    /** {@code run} for node worker-1 against a new CRUD mock server, with {@code args}. */
    private void startRun(String... args) throws IOException {
        startRun(Map.of(), args);
    }

    /** {@code run} for node worker-1, which has {@code nodeLabels}, against a new CRUD mock server. */
    private void startRun(Map<String, String> nodeLabels, String... args) throws IOException {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new io.nodelabeller.testing.NodeCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("worker-1").withLabels(nodeLabels)
                .endMetadata().build()).create();
        log = tmp.resolve("run.log");
        List<String> cmd = new ArrayList<>(List.of("run", "--node-name", "worker-1",
                "--kubeconfig", TestKubeconfig.write(tmp, client.getMasterUrl().toString()).toString()));
        cmd.addAll(List.of(args));
        run = Cli.start(log, cmd.toArray(String[]::new));
    }

    @AfterEach
    void stopRun() throws Exception {
        if (run != null) {
            run.destroy();
            assertTrue(run.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends run");
            assertEquals(0, run.exitValue(), Files.readString(log));
        }
        if (client != null) {
            client.close();
            server.destroy();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void configCustomDAndFeaturesDChangesReachTheNodeWithoutWaitingForTheInterval() throws Exception {
        int port = freePort();
        Path cm = tmp.resolve("config");
        Path customD = Files.createDirectories(tmp.resolve("custom.d"));
        Path root = tmp.resolve("host");
        Path featuresD = Files.createDirectories(root.resolve("etc/kubernetes/node-feature-discovery/features.d"));
        ConfigMapVolume.write(cm, "nfd.conf", config(port, customD, "a"));
        startRun("--config", cm.resolve("nfd.conf").toString(), "--host-root", root.toString(), "--sources", "local");
        awaitLabels(l -> "a".equals(l.get(PREFIX + "live")), 30, log);

        ConfigMapVolume.write(cm, "nfd.conf", config(port, customD, "b"));
        long ms = awaitLabels(l -> "b".equals(l.get(PREFIX + "live")), 20, log);
        System.out.printf("config change on the node after %d ms%n", ms);

        Files.writeString(customD.resolve("team.yaml"), "- name: team\n  labels: {team-rule: \"yes\"}\n");
        ms = awaitLabels(l -> "yes".equals(l.get(PREFIX + "team-rule")), 20, log);
        System.out.printf("custom.d change on the node after %d ms%n", ms);

        Files.writeString(featuresD.resolve("vendor"), "local-thing=1\n");
        ms = awaitLabels(l -> "1".equals(l.get(PREFIX + "local-thing")), 20, log);
        System.out.printf("features.d change on the node after %d ms%n", ms);

        // an invalid config is not applied: the last good one stays, the failure is counted and logged once
        ConfigMapVolume.write(cm, "nfd.conf", "core: {sleepInterval: soon}\n");
        awaitMetric(port, "node_labeller_config_reload_failing 1.0", log);
        assertTrue(metrics(port).contains("node_labeller_config_reloads_total{result=\"failure\"} 1.0"));
        Files.writeString(featuresD.resolve("vendor"), "local-thing=2\n");
        awaitLabels(l -> "2".equals(l.get(PREFIX + "local-thing")), 20, log);
        Map<String, String> labels = labels();
        assertEquals("b", labels.get(PREFIX + "live"), "the last good config's labels stay");
        assertEquals("yes", labels.get(PREFIX + "team-rule"));

        // fixed again, with a setting that needs a restart: applied, and the restart-only change named
        ConfigMapVolume.write(cm, "nfd.conf", config(port + 1, customD, "c"));
        awaitLabels(l -> "c".equals(l.get(PREFIX + "live")), 20, log);
        awaitMetric(port, "node_labeller_config_reload_failing 0.0", log);
        String out = Files.readString(log);
        assertEquals(1, count(out, "config error: "), "problems logged once: " + out);
        assertTrue(out.contains("config reload: daemon.port changed; it takes effect when the agent restarts"), out);
    }

    @Test
    void aChangedDevicePluginConfigChangesTheReplicasLabels() throws Exception {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        Path lib = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Path cm = tmp.resolve("config");
        ConfigMapVolume.write(cm, "device-plugin-config.yaml", timeSlicing(4));
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "daemon: {port: " + freePort() + "}\ncore: {sleepInterval: 60s}\n");
        startRun("--config", cfg.toString(), "--device-plugin-config", cm.resolve("device-plugin-config.yaml").toString(),
                "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", lib.toString(),
                "--sources", "pci,nvidia,system");
        awaitLabels(l -> "4".equals(l.get("nvidia.com/gpu.replicas")), 30, log);
        assertEquals("time-slicing", labels().get("nvidia.com/gpu.sharing-strategy"));

        ConfigMapVolume.write(cm, "device-plugin-config.yaml", timeSlicing(2));
        long ms = awaitLabels(l -> "2".equals(l.get("nvidia.com/gpu.replicas")), 20, log);
        System.out.printf("device plugin config change on the node after %d ms%n", ms);
    }

    @Test
    void theNodesLabelPicksTheDevicePluginConfigAsTheGpuOperatorDoes() throws Exception {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        Path lib = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        // the device plugin's ConfigMap with named configs (its chart's config.map), mounted as a directory
        Path dp = tmp.resolve("device-plugin-configs");
        ConfigMapVolume.write(dp, "default", "version: v1\n", "ts4", timeSlicing(4), "ts2", timeSlicing(2));
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "daemon: {port: " + freePort() + "}\ncore: {sleepInterval: 2s}\n");
        String label = "nvidia.com/device-plugin.config";
        startRun(Map.of(label, "ts4"), "--config", cfg.toString(), "--device-plugin-config-dir", dp.toString(),
                "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", lib.toString(),
                "--sources", "pci,nvidia,system");
        awaitLabels(l -> "4".equals(l.get("nvidia.com/gpu.replicas")), 30, log);

        setNodeLabel(label, "ts2");
        awaitLabels(l -> "2".equals(l.get("nvidia.com/gpu.replicas")), 20, log);

        // a name the ConfigMap does not have: the default, with a warning (the device plugin's config-manager
        // would stop; its pod keeps its last config, which is not ours to guess)
        setNodeLabel(label, "nosuch");
        awaitLabels(l -> "1".equals(l.get("nvidia.com/gpu.replicas")), 20, log);
        assertEquals("none", labels().get("nvidia.com/gpu.sharing-strategy"));
        assertTrue(Files.readString(log).contains("node label nvidia.com/device-plugin.config=nosuch names no config"),
                Files.readString(log));

        // the named config itself changes (ConfigMap update): seen by the file watch
        setNodeLabel(label, "ts2");
        awaitLabels(l -> "2".equals(l.get("nvidia.com/gpu.replicas")), 20, log);
        ConfigMapVolume.write(dp, "default", "version: v1\n", "ts4", timeSlicing(4), "ts2", timeSlicing(3));
        awaitLabels(l -> "3".equals(l.get("nvidia.com/gpu.replicas")), 20, log);
    }

    /** How each change of {@link #everyChangeReachesTheNodeAtOnceWhileASourceFails} must reach the node. */
    private static final long AT_ONCE_MS = 2500;

    /**
     * A GPU node without NVML from the start (the driver not installed yet: no libnvidia-ml.so.1), one whose driver
     * goes away while the agent runs (NVML: driver not loaded), or a VM whose memory source cannot read anything.
     */
    enum Failing { NVML_MISSING, NVIDIA, MEMORY }

    /** The config of the failing-host scenario: rules on system, on a features.d value, and on NVML's GPUs. */
    private static String failingHostConfig(int port, Path customD, String release) {
        return """
                core: {sleepInterval: 60s, customRulesDir: "%s"}
                daemon: {port: %d}
                sources:
                  custom:
                    - name: release
                      labels: {reload-a: "%s"}
                      matchFeatures:
                        - feature: system.osrelease
                          matchExpressions: {ID: {op: Exists}}
                    - name: copies a features.d value
                      labels: {copied: "@local.label.x"}
                      matchFeatures:
                        - feature: local.label
                          matchExpressions: {x: {op: Exists}}
                    - name: on the GPUs
                      labels: {gpu-rule: "a100"}
                      matchFeatures:
                        - feature: nvidia.gpu
                          matchExpressions: {name: {op: InRegexp, value: ["A100"]}}
                """.formatted(customD, port, release);
    }

    /**
     * Nodes where a source fails are common: a GPU node whose driver is being upgraded (NVML answers "driver not
     * loaded": the nvidia source fails), a host whose memory files cannot be read (the memory source fails).
     * There, every change an operator makes — the config in its ConfigMap, a custom.d file added and removed, an
     * invalid config then a valid one, the device plugin's config, a features.d value a rule copies — reaches the node
     * within {@link #AT_ONCE_MS} at a 60 s interval, because a rule's labels wait only for the sources their rule
     * reads. What reads the failing source keeps its last value.
     */
    @ParameterizedTest
    @EnumSource(Failing.class)
    void everyChangeReachesTheNodeAtOnceWhileASourceFails(Failing failing) throws Exception {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        int port = freePort();
        Path root = Hosts.copy("gpu-server", tmp.resolve("host"));
        Path featuresD = root.resolve("etc/kubernetes/node-feature-discovery/features.d");
        Files.writeString(featuresD.resolve("vendor"), "x=1\n");
        if (failing == Failing.MEMORY) {
            // none of the memory source's files can be read (each is there but not what the kernel makes: a broken
            // mount); the source then fails rather than report a node without memory features
            for (String broken : List.of("sys/bus/node", "sys/kernel/mm/hugepages")) {
                deleteTree(root.resolve(broken));
                Files.writeString(root.resolve(broken), "");
            }
            deleteTree(root.resolve("proc/swaps"));
            Files.createDirectories(root.resolve("proc/swaps"));
        }
        Path nvmlDir = tmp.resolve("lib");
        FakeNvml working = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb());
        Path lib = failing == Failing.NVML_MISSING ? tmp.resolve("none/libnvidia-ml.so.1") : working.install(nvmlDir);
        Path cm = tmp.resolve("config");
        Path customD = tmp.resolve("custom.d");
        Path dp = tmp.resolve("device-plugin");
        ConfigMapVolume.write(cm, "nfd.conf", failingHostConfig(port, customD, "v1"));
        ConfigMapVolume.write(customD, "base.yaml", "- name: base\n  labels: {base: \"yes\"}\n");
        ConfigMapVolume.write(dp, "config.yaml", timeSlicing(4));
        startRun("--config", cm.resolve("nfd.conf").toString(), "--host-root", root.toString(),
                "--nvml-library", lib.toString(), "--device-plugin-config", dp.resolve("config.yaml").toString());
        awaitLabels(l -> "v1".equals(l.get(PREFIX + "reload-a")) && "1".equals(l.get(PREFIX + "copied"))
                && "true".equals(l.get("nvidia.com/gpu.present")) && (failing == Failing.NVML_MISSING
                || ("4".equals(l.get("nvidia.com/gpu.replicas")) && "a100".equals(l.get(PREFIX + "gpu-rule")))), 30, log);

        if (failing == Failing.NVIDIA) {
            // the driver goes away (a GPU Operator driver upgrade): NVML_ERROR_DRIVER_NOT_LOADED from nvmlInit_v2
            FakeNvml.nvml().rc("nvmlInit_v2", 9).writeConfig(nvmlDir);
        }
        Files.writeString(featuresD.resolve("vendor"), "x=2\n");
        timed("a features.d value a rule copies", l -> "2".equals(l.get(PREFIX + "copied")));
        if (failing != Failing.MEMORY) {
            awaitMetric(port, "node_labeller_nvml_up 0.0", log);
        } else {
            assertTrue(metrics(port).contains("node_labeller_source_errors_total{source=\"memory\"}"), metrics(port));
        }

        ConfigMapVolume.write(cm, "nfd.conf", failingHostConfig(port, customD, "v2"));
        timed("a config value", l -> "v2".equals(l.get(PREFIX + "reload-a")));

        ConfigMapVolume.write(customD, "base.yaml", "- name: base\n  labels: {base: \"yes\"}\n",
                "team.yaml", "- name: team\n  labels: {team-rule: \"yes\"}\n");
        timed("a custom.d file added", l -> "yes".equals(l.get(PREFIX + "team-rule")));
        ConfigMapVolume.write(customD, "base.yaml", "- name: base\n  labels: {base: \"yes\"}\n");
        timed("a custom.d file removed", l -> !l.containsKey(PREFIX + "team-rule") && l.containsKey(PREFIX + "base"));

        ConfigMapVolume.write(cm, "nfd.conf", "core: {sleepInterval: soon}\n");
        awaitMetric(port, "node_labeller_config_reload_failing 1.0", log);
        ConfigMapVolume.write(cm, "nfd.conf", failingHostConfig(port, customD, "v3"));
        timed("a valid config after an invalid one", l -> "v3".equals(l.get(PREFIX + "reload-a")));

        ConfigMapVolume.write(dp, "config.yaml", timeSlicing(2));
        if (failing == Failing.MEMORY) {
            timed("the device plugin's config", l -> "2".equals(l.get("nvidia.com/gpu.replicas")));
        } else if (failing == Failing.NVML_MISSING) {
            // without NVML nothing comes from the device plugin's config (GFD's labels need NVML): it is read, the
            // node keeps gpu.present (from the PCI scan) and gfd.timestamp, as documented, and nothing else of nvidia.com
            // a reload names every file it read, the device plugin config included (not only the config file)
            awaitLog("config reloaded: config " + cm.resolve("nfd.conf") + ", device plugin config " + dp.resolve("config.yaml"), 1);
            Files.writeString(featuresD.resolve("vendor"), "x=3\n");
            timed("a features.d value a rule copies", l -> "3".equals(l.get(PREFIX + "copied")));
            assertEquals(List.of("nvidia.com/gfd.timestamp", "nvidia.com/gpu.present"),
                    labels().keySet().stream().filter(k -> k.startsWith("nvidia.com/")).sorted().toList());
        } else {
            // what reads NVML waits for it: the replicas label and the rule on the GPUs keep their last values
            awaitLog("config reloaded", 2);
            Files.writeString(featuresD.resolve("vendor"), "x=3\n");
            timed("a features.d value a rule copies", l -> "3".equals(l.get(PREFIX + "copied")));
            Map<String, String> labels = labels();
            assertEquals("4", labels.get("nvidia.com/gpu.replicas"), "nvidia failed: the last value is kept");
            assertEquals("a100", labels.get(PREFIX + "gpu-rule"), "its rule reads nvidia, which failed");
            assertEquals("NVIDIA-A100-SXM4-80GB-SHARED", labels.get("nvidia.com/gpu.product"));
            // the driver is back: the next cycle (here fired by a features.d change) takes the new config
            working.writeConfig(nvmlDir);
            Files.writeString(featuresD.resolve("vendor"), "x=4\n");
            timed("the device plugin's config, once NVML answers", l -> "2".equals(l.get("nvidia.com/gpu.replicas")));
            assertEquals("a100", labels().get(PREFIX + "gpu-rule"));
        }
        String out = Files.readString(log);
        assertEquals(List.of(), out.lines().filter(l -> l.contains("ERROR") && !l.contains(" ERROR LiveConfig: config "))
                .toList(), "the only error is the invalid config's: " + out);
        assertFalse(out.contains("\tat "), "no stack trace: " + out);
        if (failing == Failing.NVIDIA) {
            assertTrue(count(out, "keeping ") >= 1 && count(out, "keeping ") <= 3,
                    "kept labels logged when the kept set changes, not every cycle: " + out);
        }
    }

    /** Waits for {@code p} and fails when it took longer than {@link #AT_ONCE_MS}. */
    private void timed(String what, Predicate<Map<String, String>> p) throws Exception {
        long ms = awaitLabels(p, 20, log);
        System.out.printf("%s on the node after %d ms%n", what, ms);
        assertTrue(ms <= AT_ONCE_MS, what + " took " + ms + " ms: " + labels() + "\n" + Files.readString(log));
    }

    /** Waits until {@code part} is in the log {@code times} times. */
    private void awaitLog(String part, int times) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (count(Files.readString(log), part) < times) {
            if (System.nanoTime() > end) {
                fail("'" + part + "' not " + times + " times in\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        try (java.util.stream.Stream<Path> tree = Files.walk(p)) {
            for (Path x : tree.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }

    private void setNodeLabel(String key, String value) {
        client.nodes().withName("worker-1").edit(n -> {
            n.getMetadata().getLabels().put(key, value);
            return n;
        });
    }

    /** The device plugin's time-slicing config (its docs' example shape). */
    private static String timeSlicing(int replicas) {
        return """
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: %d
                """.formatted(replicas);
    }

    private Map<String, String> labels() {
        Map<String, String> l = client.nodes().withName("worker-1").get().getMetadata().getLabels();
        return l == null ? Map.of() : l;
    }

    /** Waits until the node's labels satisfy {@code p}; returns how long it took. */
    private long awaitLabels(Predicate<Map<String, String>> p, int seconds, Path log) throws Exception {
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(seconds)) {
            if (p.test(labels())) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            Thread.sleep(50);
        }
        return fail("labels now " + labels() + "\n" + Files.readString(log));
    }

    private static void awaitMetric(int port, String line, Path log) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            if (metrics(port).contains("\n" + line + "\n")) {
                return;
            }
            Thread.sleep(50);
        }
        fail("no '" + line + "' in\n" + metrics(port) + "\n" + Files.readString(log));
    }

    private static String metrics(int port) throws IOException, InterruptedException {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        }
    }

    private static int count(String s, String part) {
        return s.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

}
