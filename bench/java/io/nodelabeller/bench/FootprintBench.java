package io.nodelabeller.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.nodelabeller.bench.BenchRuntime.REPORT;
import static io.nodelabeller.bench.BenchRuntime.RT;
import static io.nodelabeller.bench.BenchRuntime.RUNS;
import static io.nodelabeller.bench.BenchRuntime.assumeBuilt;
import static io.nodelabeller.bench.BenchRuntime.exec;
import static io.nodelabeller.bench.BenchRuntime.median;
import static io.nodelabeller.bench.BenchRuntime.process;
import static io.nodelabeller.bench.BenchRuntime.report;
import static io.nodelabeller.bench.BenchRuntime.warmPageCache;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Measurements for docs/performance.md, on the production runtime (bin/build-runtime.sh → {@code bench.runtime},
 * default target/rt) with bin/jvm.options. Not a test of the build (the name keeps surefire from picking it up):
 * bench/footprint.sh runs it with {@code -Dtest=FootprintBench}. Everything is loopback; each part is bounded in time.
 * Results go to stdout and target/bench/footprint.txt.
 */
class FootprintBench {

    private static final int DAEMON_SECONDS = Integer.getInteger("bench.seconds", 60);

    @TempDir
    static Path tmp;

    @BeforeAll
    static void needsRuntime() throws Exception {
        assumeBuilt();
    }

    private static Path gpuServerNvml() {
        return FakeNvml.nvml().driver("580.159.04").cuda(13000).gpus(8, FakeNvml.a100_80gb())
                .install(tmp.resolve("nvml"));
    }

    private static List<String> java(String... args) {
        List<String> cmd = new ArrayList<>(List.of(RT.resolve("runtime/bin/java").toString(),
                "@" + RT.resolve("node-labeller.args").toAbsolutePath()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void printStartupAndPeakRss() throws Exception {
        Map<String, List<String>> trees = new java.util.LinkedHashMap<>();
        trees.put("cloud-vm", List.of("--host-root", Hosts.root("cloud-vm").toString()));
        trees.put("gpu-server (fake NVML, 8 x A100)", List.of("--host-root", Hosts.root("gpu-server").toString(),
                "--nvml-library", gpuServerNvml().toString()));
        for (Map.Entry<String, List<String>> t : trees.entrySet()) {
            List<Long> rss = new ArrayList<>();
            List<Double> wall = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                Path metrics = tmp.resolve("time.txt");
                List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-o", metrics.toString(), "-f", "%M %e"));
                cmd.addAll(java("print", "--no-timestamp"));
                cmd.addAll(t.getValue());
                String out = exec(tmp, cmd, 60);
                assertTrue(out.contains("feature.node.kubernetes.io/kernel-version.full="), out);
                if (t.getKey().startsWith("gpu")) {
                    assertTrue(out.contains("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB"), out);
                }
                String[] m = Files.readString(metrics).trim().split("\\s+");
                rss.add(Long.parseLong(m[m.length - 2]));
                wall.add(Double.parseDouble(m[m.length - 1]));
            }
            report(String.format("print %s: max RSS %s KiB (max %.1f MiB), wall %s s", t.getKey(), rss,
                    rss.stream().mapToLong(Long::longValue).max().orElse(0) / 1024.0, wall));
        }
    }

    /** Wall seconds of {@code cmd}, started and waited for from here, {@link #RUNS} times. */
    private static List<Double> walls(List<String> cmd, Map<String, String> env) throws Exception {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            ProcessBuilder pb = process(cmd).redirectOutput(tmp.resolve("wall.txt").toFile());
            pb.environment().putAll(env);
            long start = System.nanoTime();
            Process p = pb.start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
            out.add((System.nanoTime() - start) / 1e9);
            assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("wall.txt")));
        }
        return out;
    }

    /**
     * Start-up against the runtime's own floor: {@code java -version} of the same runtime, {@code print} on the
     * cloud-vm tree, and the time to first label: {@code once} on the gpu-server tree (fake NVML) against a loopback
     * mock API server, from process start to the node patched and the process gone. Medians of {@link #RUNS}.
     */
    @Test
    void startupAgainstJavaVersionAndTimeToFirstLabel() throws Exception {
        warmPageCache(RT);
        List<Double> version = walls(List.of(RT.resolve("runtime/bin/java").toString(), "-version"), Map.of());
        List<Double> print = walls(java("print", "--no-timestamp", "--host-root", Hosts.root("cloud-vm").toString(),
                "--nvml-library", "/nonexistent/libnvidia-ml.so.1"), Map.of());
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        server.expectCustomResource(TestKubeconfig.NODE_FEATURE_RULE_CRD);
        List<Double> once;
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("bench-node").endMetadata().build())
                    .create();
            once = walls(java("once", "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library",
                    gpuServerNvml().toString(), "--node-name", "bench-node"),
                    TestKubeconfig.podEnvironment(client.getMasterUrl().toString(), tmp));
            assertTrue(client.nodes().withName("bench-node").get().getMetadata().getLabels()
                    .containsKey("nvidia.com/gpu.product"), "once labelled the node");
        } finally {
            server.destroy();
        }
        double v = median(version);
        report(String.format("java -version: median %.3f s %s", v, version));
        report(String.format("print cloud-vm: median %.3f s (%.1fx java -version) %s", median(print), median(print) / v, print));
        report(String.format("once gpu-server -> node patched -> exit: median %.3f s (%.1fx java -version) %s",
                median(once), median(once) / v, once));
    }

    /**
     * The big host (BigHost: 2000 PCI devices, 256 CPUs, 64 block and 64 network devices, 16 NUMA nodes), full size
     * and half: the files one cycle reads are recorded with JFR's file-read events (threshold 0) in this JVM, then
     * BigHostBench times the cycle against a plain loop over those files on the production runtime.
     */
    @Test
    void bigHostCycleAgainstAPlainRead() throws Exception {
        for (int divisor : new int[] {2, 1}) {
            Path root = BigHost.generate(Hosts.root("gpu-server"), Path.of("target/bench/big-host-" + divisor).toAbsolutePath(), divisor);
            Path reads = Path.of("target/bench/big-host-" + divisor + "-reads.txt");
            Files.write(reads, readsOfOneCycle(root));
            String cp = RT.resolve("lib/node-labeller.jar") + ":" + Path.of("target/test-classes");
            String out = exec(tmp, List.of(RT.resolve("runtime/bin/java").toString(),
                    "@" + RT.resolve("jvm.options").toAbsolutePath(), "-cp", cp, BigHostBench.class.getName(),
                    root.toString(), reads.toString(), "20", "100"), 600);
            report((divisor == 1 ? "full size: " : "half size: ") + out.lines().filter(l -> l.startsWith("big host"))
                    .findFirst().orElse(out));
        }
    }

    /** The regular files under {@code root} that one discovery reads, in the order it reads them. */
    private static List<String> readsOfOneCycle(Path root) throws Exception {
        io.nodelabeller.config.Config config = io.nodelabeller.config.Config.DEFAULT;
        io.nodelabeller.config.Options options = new io.nodelabeller.config.Options(root, "/nonexistent/libnvidia-ml.so.1",
                null, true, null);
        io.nodelabeller.source.Discovery discovery = new io.nodelabeller.source.Discovery(new io.nodelabeller.source.HostFs(root),
                io.nodelabeller.catalog.Catalog.sources(config, options, config.core().featureSources()));
        discovery.discover(); // warm: class loading reads jars, not the host
        Path jfr = tmp.resolve("reads.jfr");
        try (jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
            recording.enable("jdk.FileRead").withThreshold(Duration.ZERO);
            recording.start();
            discovery.discover();
            recording.stop();
            recording.dump(jfr);
        }
        java.util.LinkedHashSet<String> files = new java.util.LinkedHashSet<>();
        for (jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(jfr)) {
            String path = e.getString("path");
            if (path != null && path.startsWith(root.toString()) && Files.isRegularFile(Path.of(path))) {
                files.add(path);
            }
        }
        assertTrue(files.size() > 1000, "JFR saw the cycle's reads: " + files.size());
        return List.copyOf(files);
    }

    @Test
    void cycleCostOnTheGpuServer() throws Exception {
        String cp = RT.resolve("lib/node-labeller.jar") + ":" + Path.of("target/test-classes");
        String out = exec(tmp, List.of(RT.resolve("runtime/bin/java").toString(),
                "@" + RT.resolve("jvm.options").toAbsolutePath(), "-cp", cp, CycleBench.class.getName(),
                Hosts.root("gpu-server").toString(), gpuServerNvml().toString(), "20", "200"), 300);
        report("gpu-server " + out.lines().filter(l -> l.startsWith("cycle")).findFirst().orElse(out));
    }

    /** {@code run} against the mock API server over plain HTTP: the figure the footprint targets were set on. */
    @Test
    void runSteadyStateAgainstALoopbackApiServer() throws Exception {
        steadyState(false);
    }

    /**
     * The same over TLS, as in a pod: the mock server's self-signed certificate is the CA the agent trusts (what a
     * service account's ca.crt is in a cluster), and the client chooses HTTP/2 by ALPN as it does with kube-apiserver.
     */
    @Test
    void runSteadyStateOverTlsAsInAPod() throws Exception {
        steadyState(true);
    }

    /** A copy of the gpu-server tree under tmp (made once) with this machine's boot id (/proc/sys/kernel/random/boot_id). */
    private static Path runningMachineCopy() throws Exception {
        Path copy = tmp.resolve("running-machine");
        if (!Files.exists(copy)) {
            Hosts.copy("gpu-server", copy);
        }
        Path bootId = copy.resolve("proc/sys/kernel/random/boot_id");
        Files.createDirectories(bootId.getParent());
        Files.writeString(bootId, Files.readString(Path.of("/proc/sys/kernel/random/boot_id")));
        return copy;
    }

    private void steadyState(boolean tls) throws Exception {
        MockWebServer web = new MockWebServer();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), web, new HashMap<>(),
                new KubernetesCrudDispatcher(), tls);
        server.init(InetAddress.getLoopbackAddress(), 0);
        server.expectCustomResource(TestKubeconfig.NODE_FEATURE_RULE_CRD);
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("bench-node").endMetadata().build())
                    .create();
            // the install the DaemonSet names (NODE_LABELLER_INSTANCE), its ClusterRoleBinding as the manifests ship it;
            // -Dbench.instance= (empty) measures an agent that names none (no write scope read)
            String instance = System.getProperty("bench.instance", "node-labeller");
            try (var rbac = Files.newInputStream(Path.of("manifests/base/common/rbac.yaml"))) {
                client.load(rbac).items().stream().filter(o -> o.getKind().equals("ClusterRoleBinding"))
                        .forEach(o -> client.resource(o).create());
            }
            Path config = tmp.resolve("bench.yaml");
            Files.writeString(config, "core:\n  sleepInterval: 1s\ndaemon:\n  port: 0\n");
            Path log = tmp.resolve("run.log");
            // configured as in a pod (no kubeconfig to parse): fabric8 reads the API server from the environment,
            // as it reads KUBERNETES_SERVICE_HOST and the service account in-cluster
            // -Dbench.runningMachine=true: the tree with this machine's boot id, as the host's tree is in a pod, so that
            // the cpu source reads CPUID as it does on a node (a test tree is never the running machine)
            Path tree = Boolean.getBoolean("bench.runningMachine") ? runningMachineCopy() : Hosts.root("gpu-server");
            List<String> args = new ArrayList<>(List.of("run", "--config", config.toString(),
                    "--host-root", tree.toString(), "--nvml-library", gpuServerNvml().toString(),
                    "--node-name", "bench-node"));
            String role = System.getProperty("bench.role", "");
            if (!role.isEmpty()) {
                args.addAll(List.of("--role", role));
            }
            if (!instance.isEmpty()) {
                args.addAll(List.of("--instance", instance));
            }
            ProcessBuilder pb = process(java(args.toArray(String[]::new))).redirectOutput(log.toFile());
            pb.environment().putAll(TestKubeconfig.podEnvironment(client.getMasterUrl().toString(), tmp));
            if (tls) {
                pb.environment().put("KUBERNETES_CERTS_CA_FILE", web.getSelfSignedCertificate().certificatePath());
            }
            warmPageCache(RT);
            Process p = pb.start();
            long hwm = 0;
            List<Long> rss = new ArrayList<>();
            List<Long> anon = new ArrayList<>();
            List<Integer> threads = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(DAEMON_SECONDS);
            int port = -1;
            while (System.nanoTime() < end && p.isAlive()) {
                Thread.sleep(1000);
                Map<String, String> s = Proc.status(p.pid());
                rss.add(Proc.kib(s.get("VmRSS")));
                anon.add(Proc.kib(s.get("RssAnon")));
                hwm = Math.max(hwm, Proc.kib(s.get("VmHWM")));
                threads.add(Integer.parseInt(s.get("Threads").trim()));
                if (port < 0) {
                    Matcher m = Pattern.compile("endpoints on port (\\d+)").matcher(Files.readString(log));
                    port = m.find() ? Integer.parseInt(m.group(1)) : -1;
                }
            }
            assertTrue(p.isAlive(), Files.readString(log));
            java.util.TreeMap<String, Integer> names = new java.util.TreeMap<>();
            try (var tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
                for (Path t : tasks.toList()) {
                    // numbered threads of one pool counted together ("pool-1-thread-3" -> "pool-#-thread-#")
                    names.merge(Files.readString(t.resolve("comm")).trim().replaceAll("\\d+", "#"), 1, Integer::sum);
                }
            }
            String mappings = Proc.smapsByMapping(p.pid(), "Private_Dirty", 12);
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "did not stop on SIGTERM");
            // kept for reading (with -XX:NativeMemoryTracking=summary -XX:+PrintNMTStatistics, the JVM's own breakdown)
            Files.copy(log, REPORT.resolveSibling("run.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            assertEquals(0, p.exitValue(), Files.readString(log));
            double cycles = metric(metrics, "node_labeller_cycle_duration_seconds_count");
            double seconds = metric(metrics, "node_labeller_cycle_duration_seconds_sum");
            // the host agent writes no NVML label; with CPUID it names the hypervisor (bare metal: none)
            String expectedLabel = role.equals("host") ? "feature.node.kubernetes.io/cpu-model.vendor_id" : "nvidia.com/gpu.product";
            assertTrue(client.nodes().withName("bench-node").get().getMetadata().getLabels()
                    .containsKey(expectedLabel), "the node was labelled");
            int n = rss.size();
            List<Long> lastTen = rss.subList(Math.max(0, n - 10), n);
            report(String.format("run gpu-server" + (role.isEmpty() ? "" : ", --role " + role)
                            + (Boolean.getBoolean("bench.runningMachine") ? ", the running machine's boot id (CPUID)" : "")
                            + ", %s, sleepInterval 1s, %d s, %.0f cycles (mean cycle incl. publish %.1f ms,"
                            + " %.0f patches): VmRSS first %d KiB, last 10 s %s KiB, VmHWM %d KiB (%.1f MiB), threads %s",
                    tls ? "TLS as in a pod" : "plain HTTP", DAEMON_SECONDS, cycles, seconds * 1000 / cycles,
                    metric(metrics, "node_labeller_patches_sent_total"),
                    rss.get(0), lastTen, hwm, hwm / 1024.0, threads.stream().distinct().sorted().toList()));
            report("  RssAnon (what the container really holds) last 10 s " + anon.subList(Math.max(0, n - 10), n) + " KiB");
            report("  threads at the end: " + names);
            report(mappings);
        } finally {
            server.destroy();
        }
    }

    private static double metric(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
