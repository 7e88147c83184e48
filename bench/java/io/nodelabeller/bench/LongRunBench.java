package io.nodelabeller.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodelabeller.testing.ClusterObjects;
import io.nodelabeller.testing.ControlPlane;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The footprint after days, not after a minute: {@code run} on the gpu-server tree with the fake NVML (8 x A100),
 * against a real kube-apiserver over TLS with a pod-bound token, at {@code core.sleepInterval: 1s} for
 * {@code bench.minutes} (each minute stands for an hour of the default 60 s cycles), with the churn a node sees:
 * a features.d file rewritten every 20 s, a NodeFeatureRule changed every 45 s, the API server restarted every 10
 * minutes (every watch drops and comes back from a new watch cache), and once, at half time, down for 60 s. Each JVM
 * variant of {@code bench.variants} ({@code |}-separated extra flags; empty = bin/jvm.options alone) runs as its own
 * agent on its own node, side by side, so they share the machine and the churn. Every 30 s it samples VmRSS,
 * RssAnon, threads and open files of each agent; every 5 minutes the JVM's Native Memory Tracking summary
 * ({@code jcmd}, the agents run with {@code -XX:NativeMemoryTracking=summary}, which costs them a little memory of
 * its own). At the end: every label right (the last rule and features.d values), and a verdict per variant on the
 * trend of the last half (least-squares slope of VmRSS in MiB per hour of the run: a plateau below
 * {@code bench.plateauMiBPerHour}, 1 by default) and per NMT category (growth over the last half).
 *
 * <p>Production runtime and flags (bin/build-runtime.sh, bin/jvm.options); bench/longrun.sh builds and runs it.
 * Results: stdout, target/bench/longrun.txt and target/bench/longrun.csv (one line per sample).
 */
class LongRunBench {

    private static final Path RT = Path.of(System.getProperty("bench.runtime", "target/rt"));
    private static final int MINUTES = Integer.getInteger("bench.minutes", 30);
    private static final List<String> VARIANTS = List.of(System.getProperty("bench.variants", "").split("\\|", -1));
    private static final double PLATEAU = Double.parseDouble(System.getProperty("bench.plateauMiBPerHour", "1"));
    private static final Path REPORT = Path.of("target/bench/longrun.txt");
    private static final Path CSV = Path.of("target/bench/longrun.csv");
    private static final String RULE_LABEL = "feature.node.kubernetes.io/longrun-rule";
    private static final String FILE_LABEL = "feature.node.kubernetes.io/longrun-file";
    private static final ResourceDefinitionContext RULES = new ResourceDefinitionContext.Builder().withGroup("nfd.k8s-sigs.io")
            .withVersion("v1alpha1").withPlural("nodefeaturerules").withKind("NodeFeatureRule").withNamespaced(false).build();
    /** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
    private static final long TICKS = 100;
    private static final Pattern NMT = Pattern.compile("(?m)^-\\s+(.+?) \\(reserved=\\d+KB, committed=(\\d+)KB\\)");

    @TempDir
    Path tmp;

    /** One agent: its JVM flags, node, process, samples. */
    private static final class Agent {
        final String flags;
        final String node;
        final Path root;
        final Path log;
        Process process;
        // seconds since start, VmRSS KiB, RssAnon KiB, threads, fds, CPU ms (user + system)
        final List<long[]> samples = new ArrayList<>();
        final List<Map<String, Long>> nmt = new ArrayList<>(); // committed KiB per category, every 5 minutes
        String smaps = "";

        Agent(String flags, int index, Path tmp) {
            this.flags = flags.trim();
            this.node = "longrun-" + index;
            this.root = tmp.resolve("root-" + index);
            this.log = tmp.resolve("run-" + index + ".log");
        }

        String name() {
            return flags.isEmpty() ? "bin/jvm.options" : "bin/jvm.options + " + flags;
        }
    }

    @Test
    void runForHoursOfCyclesWithChurn() throws Exception {
        assumeTrue(Files.isExecutable(RT.resolve("runtime/bin/java")),
                "no runtime at " + RT + ": run bin/build-runtime.sh target/node-labeller.jar " + RT);
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Files.createDirectories(REPORT.getParent());
        Files.deleteIfExists(REPORT);
        Files.writeString(CSV, "variant,seconds,vmrss_kib,rssanon_kib,threads,fds,cpu_ms\n");
        Path lib = FakeNvml.nvml().driver("580.159.04").cuda(13000).gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("nvml"));
        ControlPlane cp = ControlPlane.start(null);
        List<Agent> agents = new ArrayList<>();
        try {
            KubernetesClient admin = cp.admin();
            try (var crds = Files.newInputStream(Path.of("src/test/resources/nfd/nfd-api-crds.yaml"))) {
                admin.load(crds).items().forEach(o -> admin.resource(o).create());
            }
            // the base install as shipped (RBAC, write scope, admission policy), but its DaemonSet: the agents run here
            io.nodelabeller.deploy.Manifests.render("base").stream().filter(o -> !o.getKind().equals("DaemonSet"))
                    .forEach(o -> admin.resource(o).create());
            ControlPlane.sleep(2_000); // the CRDs established
            putRule(admin, 0);
            Path config = tmp.resolve("config.yaml");
            Files.writeString(config, "core:\n  sleepInterval: 1s\ndaemon:\n  port: 0\npublish:\n  ruleChangeSpread: 0s\n");
            for (int i = 0; i < VARIANTS.size(); i++) {
                Agent a = new Agent(VARIANTS.get(i), i, tmp);
                agents.add(a);
                cp.node(a.node);
                Hosts.copy("gpu-server", a.root);
                writeFeatureFile(a, 0);
                Path kubeconfig = cp.kubeconfig(tmp, "agent-" + i, cp.podBoundToken("node-labeller", "node-labeller", a.node));
                List<String> extra = new ArrayList<>(List.of("-XX:NativeMemoryTracking=summary"));
                if (!a.flags.isEmpty()) {
                    extra.addAll(List.of(a.flags.split("\\s+")));
                }
                List<String> cmd = launch(extra);
                cmd.addAll(List.of("run", "--config", config.toString(), "--kubeconfig", kubeconfig.toString(),
                        "--node-name", a.node, "--instance", "node-labeller", "--host-root", a.root.toString(),
                        "--nvml-library", lib.toString()));
                a.process = BenchRuntime.process(cmd).redirectOutput(a.log.toFile()).start();
            }
            long start = System.nanoTime();
            long end = start + TimeUnit.MINUTES.toNanos(MINUTES);
            int tick = 0;
            int rule = 0;
            int file = 0;
            boolean outage = false;
            while (System.nanoTime() < end) {
                Thread.sleep(5_000);
                tick += 5;
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                if (tick % 20 == 0) {
                    file++;
                    for (Agent a : agents) {
                        writeFeatureFile(a, file);
                    }
                }
                if (tick % 45 == 0) {
                    rule++;
                    putRule(admin, rule);
                }
                if (tick % 30 == 0) {
                    for (Agent a : agents) {
                        sample(a, seconds);
                    }
                }
                if (tick % 300 == 0) {
                    for (Agent a : agents) {
                        a.nmt.add(nmt(jcmd, a));
                    }
                }
                if (!outage && seconds >= MINUTES * 30L) {
                    outage = true;
                    cp.restartApiServer(Duration.ofSeconds(60));
                } else if (tick % 600 == 0) {
                    cp.restartApiServer();
                }
                for (Agent a : agents) {
                    assertTrue(a.process.isAlive(), a.name() + " stopped:\n" + Files.readString(a.log));
                }
            }
            for (Agent a : agents) {
                a.nmt.add(nmt(jcmd, a));
                a.smaps = Proc.smapsByMapping(a.process.pid(), "Anonymous", 8);
            }
            // every label right: the last values of the churn, the GPU labels
            Thread.sleep(5_000);
            for (Agent a : agents) {
                Map<String, String> labels = admin.nodes().withName(a.node).get().getMetadata().getLabels();
                assertEquals(Integer.toString(rule), labels.get(RULE_LABEL), a.name());
                assertEquals(Integer.toString(file), labels.get(FILE_LABEL), a.name());
                assertEquals("NVIDIA-A100-SXM4-80GB", labels.get("nvidia.com/gpu.product"), a.name());
            }
            report(String.format("run, gpu-server tree with the fake NVML (8 x A100), real kube-apiserver over TLS, "
                    + "sleepInterval 1s for %d min (%.1f days of 60 s cycles), features.d every 20 s, a NodeFeatureRule "
                    + "every 45 s (%d changes), API server restarted every 10 min and down 60 s once; every label right",
                    MINUTES, MINUTES / 24.0, rule));
            for (Agent a : agents) {
                report(verdict(a));
                report(a.smaps);
                a.process.destroy();
                assertTrue(a.process.waitFor(30, TimeUnit.SECONDS), "did not stop on SIGTERM");
                String log = Files.readString(a.log);
                // the JVM's own warnings go to the same output, not through our log: a full code cache stops the JIT
                // ("CodeCache is full. Compiler has been disabled.") and is reported here, not taken for a plateau
                report("  log lines: " + log.lines().count() + ", WARN " + count(log, " WARN ") + ", ERROR "
                        + count(log, " ERROR ") + ", JVM warnings " + count(log, "][warning]")
                        + (log.contains("CodeCache is full") ? " (the code cache filled: the JIT stopped)" : ""));
            }
        } finally {
            for (Agent a : agents) {
                if (a.process != null) {
                    a.process.destroyForcibly();
                }
                if (Files.exists(a.log)) { // kept for reading
                    Files.copy(a.log, REPORT.resolveSibling("longrun-" + a.node + ".log"),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            cp.stop();
        }
    }

    /**
     * The runtime's launch (node-labeller.args: bin/jvm.options, the archive, {@code -jar} and the jar) with
     * {@code extra} JVM flags after the shipped ones, so that a variant's flag wins over the same flag there.
     */
    private static List<String> launch(List<String> extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(RT.resolve("runtime/bin/java").toString()));
        for (String line : Files.readAllLines(RT.resolve("node-labeller.args"))) {
            String arg = line.strip();
            if (arg.equals("-jar")) {
                cmd.addAll(extra);
            }
            if (!arg.isEmpty() && !arg.startsWith("#")) {
                cmd.add(arg);
            }
        }
        assertTrue(cmd.containsAll(extra), "no -jar in node-labeller.args");
        return cmd;
    }

    private static void putRule(KubernetesClient admin, int version) {
        GenericKubernetesResource r = admin.getKubernetesSerialization().unmarshal(
                ClusterObjects.everyNodeRule("longrun", RULE_LABEL, Integer.toString(version)), GenericKubernetesResource.class);
        admin.genericKubernetesResources(RULES).resource(r).fieldManager("kubectl").forceConflicts().serverSideApply();
    }

    private static void writeFeatureFile(Agent a, int value) throws Exception {
        Path dir = a.root.resolve("etc/kubernetes/node-feature-discovery/features.d");
        Files.createDirectories(dir);
        Path tmpFile = dir.resolve(".longrun.tmp");
        Files.writeString(tmpFile, "longrun-file=" + value + "\n");
        Files.move(tmpFile, dir.resolve("longrun"), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static void sample(Agent a, long seconds) throws Exception {
        Path proc = Path.of("/proc", Long.toString(a.process.pid()));
        Map<String, String> s = Proc.status(a.process.pid());
        long fds;
        try (var list = Files.list(proc.resolve("fd"))) {
            fds = list.count();
        }
        String stat = Files.readString(proc.resolve("stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // fields from 3 (state) on
        long cpuMs = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / TICKS; // utime, stime
        long[] row = {seconds, Proc.kib(s.get("VmRSS")), Proc.kib(s.get("RssAnon")), Long.parseLong(s.get("Threads")), fds, cpuMs};
        a.samples.add(row);
        Files.writeString(CSV, String.format("\"%s\",%d,%d,%d,%d,%d,%d%n", a.name(), row[0], row[1], row[2], row[3], row[4],
                row[5]), java.nio.file.StandardOpenOption.APPEND);
    }

    /** NMT's committed KiB per category ("Java Heap", "Class", "Thread", "Code", ...), empty when jcmd cannot attach. */
    private static Map<String, Long> nmt(Path jcmd, Agent a) throws Exception {
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(a.process.pid()), "VM.native_memory", "summary")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        Map<String, Long> m = new LinkedHashMap<>();
        Matcher matcher = NMT.matcher(out);
        while (matcher.find()) {
            m.put(matcher.group(1).trim(), Long.parseLong(matcher.group(2)));
        }
        return m;
    }

    /** The trend of the last half: VmRSS slope per hour of the run, the NMT categories that grew, first and last figures. */
    private static String verdict(Agent a) {
        List<long[]> half = a.samples.subList(a.samples.size() / 2, a.samples.size());
        double rssSlope = slope(half, 1) * 3600 / 1024;
        double anonSlope = slope(half, 2) * 3600 / 1024;
        long[] first = a.samples.get(0);
        long[] last = a.samples.get(a.samples.size() - 1);
        long maxRss = a.samples.stream().mapToLong(r -> r[1]).max().orElse(0);
        long[] mid = half.get(0);
        // a cycle about every second (sleepInterval 1s plus the cycle): CPU ms per second of the run ~ per cycle
        double cpuPerSecond = (double) (last[5] - mid[5]) / Math.max(1, last[0] - mid[0]);
        StringBuilder sb = new StringBuilder(String.format("%s: VmRSS %.1f -> %.1f MiB (max %.1f), RssAnon %.1f -> %.1f MiB, "
                        + "threads %d -> %d, fds %d -> %d, CPU %.1f ms per second of the last half; last half: VmRSS "
                        + "%+.2f MiB/h, RssAnon %+.2f MiB/h: %s",
                a.name(), first[1] / 1024.0, last[1] / 1024.0, maxRss / 1024.0, first[2] / 1024.0, last[2] / 1024.0,
                first[3], last[3], first[4], last[4], cpuPerSecond, rssSlope, anonSlope,
                rssSlope < PLATEAU ? "PLATEAU" : "STILL RISING"));
        if (a.nmt.size() >= 2) {
            Map<String, Long> nmtMid = a.nmt.get((a.nmt.size() - 1) / 2);
            Map<String, Long> end = a.nmt.get(a.nmt.size() - 1);
            sb.append("\n  NMT committed KiB at the end (growth over the last half):");
            end.forEach((k, v) -> sb.append(String.format(" %s %d (%+d);", k, v, v - nmtMid.getOrDefault(k, 0L))));
        }
        return sb.toString();
    }

    /** Least-squares slope of column {@code col} against column 0, per second. */
    private static double slope(List<long[]> rows, int col) {
        double n = rows.size();
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        for (long[] r : rows) {
            sx += r[0];
            sy += r[col];
            sxx += (double) r[0] * r[0];
            sxy += (double) r[0] * r[col];
        }
        double d = n * sxx - sx * sx;
        return d == 0 ? 0 : (n * sxy - sx * sy) / d;
    }

    private static long count(String text, String needle) {
        return text.lines().filter(l -> l.contains(needle)).count();
    }

    private static void report(String line) throws Exception {
        System.out.println(line);
        Files.writeString(REPORT, line + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }
}
