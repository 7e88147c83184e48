package io.nodelabeller.bench.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodelabeller.loopback.LoopbackApiServer;
import io.nodelabeller.testing.ClusterObjects;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * N agents ({@code run}, each a process on the production runtime with its own node name, host root — a copy of the
 * cloud-vm tree — config and kubeconfig) against one {@link LoopbackApiServer}, and what the server sees, second by
 * second, through the life of a cluster: install (the DaemonSet's pods starting, {@code fleet.wave} at a time), rest,
 * a NodeFeatureRule change, an API server restart after an outage of {@code fleet.outage} seconds (the rule changed
 * while it was down), watch churn (every watch ended by the server within a minute), a rollout (every agent restarted,
 * 10 % at a time, each wave once the previous one is ready). bench/fleet.sh runs it; results go to
 * target/bench/fleet-&lt;tag&gt;.txt (summary) and .tsv (per second). Not a test of the build: the name keeps surefire
 * from picking it up. Loopback only.
 */
class FleetBench {

    private static final Path RT = Path.of(System.getProperty("bench.runtime", "target/rt"));
    private static final int N = Integer.getInteger("fleet.agents", 200);
    private static final String SPREAD = System.getProperty("fleet.spread", "30s");
    private static final int REST = Integer.getInteger("fleet.rest", 180);
    private static final int OUTAGE = Integer.getInteger("fleet.outage", 60);
    private static final String SCENARIOS = System.getProperty("fleet.scenarios", "rest,rule,outage,churn,rollout");
    private static final String TAG = System.getProperty("fleet.tag", "n" + N + "-spread" + SPREAD);
    private static final Path WORK = Path.of("target/bench/fleet");
    private static final String LABEL = "example.com/rule-version";

    private final List<String> marks = new ArrayList<>();
    private final Map<String, String> summary = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private LoopbackApiServer server;
    private final Process[] agents = new Process[N];
    private final int[] ports = new int[N];

    @Test
    void fleet() throws Exception {
        assumeTrue(Files.isExecutable(RT.resolve("runtime/bin/java")),
                "no runtime at " + RT + ": run bin/build-runtime.sh target/node-labeller.jar " + RT);
        deleteTree(WORK);
        Files.createDirectories(WORK);
        server = new LoopbackApiServer(LoopbackApiServer.Options.plain().port(freePort()).bookmark(Duration.ofMinutes(1))
                .heartbeat(Duration.ofMinutes(5)));
        try {
            for (int i = 0; i < N; i++) {
                server.putNode(kubeletNode(node(i), 40));
                prepare(i);
            }
            server.putRule(rule("v1"));
            run();
        } finally {
            for (Process p : agents) {
                if (p != null) {
                    p.destroy();
                }
            }
            for (Process p : agents) {
                if (p != null) {
                    p.waitFor(30, TimeUnit.SECONDS);
                }
            }
            report();
            server.close();
        }
    }

    /**
     * The busiest second of a rule change against N/W, for fleets larger than this machine runs: each agent's delay
     * drawn as NodeFeatureRules draws it (uniform over [0, W] ms, plus the 500 ms burst window), 200 trials per size.
     * {@code -Dtest=FleetBench#spreadPeaks}: seconds, no agents.
     */
    @Test
    void spreadPeaks() throws IOException {
        java.util.Random random = new java.util.Random(7);
        long w = 30_000;
        StringBuilder out = new StringBuilder("agents\tN/W per s\tbusiest second (mean of 200 trials)\tratio\n");
        for (int n : new int[] {200, 1_000, 5_000, 15_000}) {
            double sum = 0;
            for (int trial = 0; trial < 200; trial++) {
                int[] perSecond = new int[(int) (w / 1000) + 2];
                for (int i = 0; i < n; i++) {
                    perSecond[(int) ((500 + random.nextLong(w + 1)) / 1000)]++;
                }
                sum += java.util.Arrays.stream(perSecond).max().orElse(0);
            }
            double mean = n * 1000.0 / w;
            out.append(String.format(Locale.ROOT, "%d\t%.1f\t%.1f\t%.2f%n", n, mean, sum / 200, sum / 200 / mean));
        }
        Files.createDirectories(WORK.getParent());
        Files.writeString(WORK.getParent().resolve("fleet-spread-peaks.txt"), out);
        System.out.println(out);
    }

    private void run() throws Exception {
        // install: a DaemonSet's pods, a wave at a time as fast as this machine starts them (all at once on a cluster)
        phase("install");
        long t0 = System.nanoTime();
        int wave = Math.max(1, N / 10);
        for (int from = 0; from < N; from += wave) {
            int to = Math.min(N, from + wave);
            for (int i = from; i < to; i++) {
                start(i);
            }
            awaitReady(from, to, Duration.ofMinutes(3));
        }
        awaitNodes(n -> label(n, LABEL).equals("v1"), Duration.ofMinutes(3), "every node labelled");
        summary.put("install: all labelled after", seconds(t0));
        settle(Integer.getInteger("fleet.settle", 90));

        if (SCENARIOS.contains("rest")) {
            phase("rest");
            long logLines = logLines();
            long s0 = server.second();
            Thread.sleep(REST * 1000L);
            long s1 = server.second();
            summary.put("rest: seconds", Long.toString(s1 - s0));
            summary.put("rest: log lines per node per hour", perNodeHour(logLines() - logLines, s1 - s0));
        }

        if (SCENARIOS.contains("rule")) {
            phase("rule");
            long t = System.nanoTime();
            long p0 = server.patches();
            server.putRule(rule("v2"));
            awaitNodes(n -> label(n, LABEL).equals("v2"), Duration.ofMinutes(3), "every node has v2");
            summary.put("rule: all nodes changed after", seconds(t));
            summary.put("rule: patches", Long.toString(server.patches() - p0));
            settle(30);
        }

        if (SCENARIOS.contains("outage")) {
            phase("outage");
            server.restart();
            Thread.sleep(OUTAGE * 500L);
            server.putRule(rule("v3")); // changed while the server is down: seen after the relist
            Thread.sleep(OUTAGE * 500L);
            phase("recovered");
            long t = System.nanoTime();
            server.resume(true);
            awaitNodes(n -> label(n, LABEL).equals("v3"), Duration.ofMinutes(4), "every node has v3 after the outage");
            summary.put("outage: all nodes correct after recovery", seconds(t));
            settle(150);
        }

        if (SCENARIOS.contains("churn")) {
            phase("churn");
            server.churn(Duration.ofSeconds(60));
            Thread.sleep(180_000);
            server.churn(Duration.ZERO);
            phase("churn-end");
            settle(30);
        }

        if (SCENARIOS.contains("rollout")) {
            phase("rollout");
            long t = System.nanoTime();
            for (int from = 0; from < N; from += wave) {
                int to = Math.min(N, from + wave);
                for (int i = from; i < to; i++) {
                    agents[i].destroy();
                }
                for (int i = from; i < to; i++) {
                    agents[i].waitFor(30, TimeUnit.SECONDS);
                    start(i);
                }
                awaitReady(from, to, Duration.ofMinutes(3));
            }
            summary.put("rollout: all restarted and ready after", seconds(t));
            settle(60);
        }
        phase("end");
        awaitNodes(n -> label(n, LABEL).equals(SCENARIOS.contains("outage") ? "v3" : SCENARIOS.contains("rule") ? "v2" : "v1"),
                Duration.ofSeconds(30), "every node correct at the end");
    }

    private void settle(int seconds) throws InterruptedException {
        Thread.sleep(seconds * 1000L);
    }

    private void phase(String name) {
        marks.add(server.second() + "\t" + name);
        System.out.println("[fleet] " + server.second() + " s: " + name);
    }

    private static String node(int i) {
        return "node-%05d".formatted(i);
    }

    private Path dir(int i) {
        return WORK.resolve(node(i));
    }

    private void prepare(int i) throws IOException {
        Path d = Files.createDirectories(dir(i));
        Hosts.copy("cloud-vm", d.resolve("host"));
        // the tree has no /proc/modules; a running kernel always has one (format: kernel/module/procfs.c m_show)
        Files.writeString(d.resolve("host/proc/modules"), """
                nf_conntrack 176128 1 nf_nat, Live 0x0000000000000000
                overlay 163840 12 - Live 0x0000000000000000
                ena 155648 0 - Live 0x0000000000000000
                """);
        // port 0: any free port (a port chosen here could be taken by another agent's connection before it listens)
        Files.writeString(d.resolve("config.yaml"), """
                core: {sleepInterval: 60s}
                daemon: {port: 0}
                publish: {ruleChangeSpread: %s}
                """.formatted(SPREAD));
        TestKubeconfig.write(d, server.url());
    }

    private final long[] logOffset = new long[N];

    private void start(int i) throws IOException {
        ports[i] = 0;
        Path log = dir(i).resolve("agent.log");
        logOffset[i] = Files.exists(log) ? Files.size(log) : 0;
        Path d = dir(i).toAbsolutePath();
        List<String> cmd = List.of(RT.resolve("runtime/bin/java").toAbsolutePath().toString(),
                "@" + RT.resolve("node-labeller.args").toAbsolutePath(), "run", "--node-name", node(i),
                "--kubeconfig", d.resolve("kubeconfig").toString(), "--config", d.resolve("config.yaml").toString(),
                "--host-root", d.resolve("host").toString());
        agents[i] = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(d.resolve("agent.log").toFile())).start();
    }

    private void awaitReady(int from, int to, Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        for (int i = from; i < to; i++) {
            while (!ready(i)) {
                assertTrue(System.nanoTime() < end, node(i) + " not ready within " + limit);
                Thread.sleep(200);
            }
        }
    }

    private boolean ready(int i) {
        assertTrue(agents[i].isAlive(), node(i) + " ended: see " + dir(i).resolve("agent.log"));
        if (ports[i] == 0) {
            ports[i] = port(i);
            if (ports[i] == 0) {
                return false;
            }
        }
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[i] + "/readyz"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The port this start of the agent serves its endpoints on, from its log line "endpoints on port N"; 0 = not yet. */
    private int port(int i) {
        try {
            String log = Files.readString(dir(i).resolve("agent.log"));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("endpoints on port (\\d+)")
                    .matcher(log.substring((int) Math.min(log.length(), logOffset[i])));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private void awaitNodes(Predicate<JsonNode> ok, Duration limit, String what) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (true) {
            long bad = server.allNodes().stream().filter(ok.negate()).count();
            if (bad == 0) {
                return;
            }
            assertTrue(System.nanoTime() < end, what + ": " + bad + " node(s) not yet after " + limit);
            Thread.sleep(250);
        }
    }

    private static String label(JsonNode node, String key) {
        return node.path("metadata").path("labels").path(key).asText("");
    }

    /** A NodeFeatureRule object whose rule matches every node and labels it with {@code version}. */
    private static ObjectNode rule(String version) throws IOException {
        return (ObjectNode) LoopbackApiServer.JSON.readTree(
                ClusterObjects.everyNodeRule("fleet-policy", LABEL, version));
    }

    private long logLines() throws IOException {
        long n = 0;
        for (int i = 0; i < N; i++) {
            try (var lines = Files.lines(dir(i).resolve("agent.log"))) {
                n += lines.count();
            }
        }
        return n;
    }

    private String perNodeHour(double count, long seconds) {
        return String.format(Locale.ROOT, "%.2f", count / N * 3600.0 / Math.max(1, seconds));
    }

    private static String seconds(long startNanos) {
        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - startNanos) / 1e9);
    }

    // ---- the report ----

    private void report() throws IOException {
        Map<Long, LoopbackApiServer.Second> secs = new TreeMap<>(server.seconds());
        long last = secs.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        StringBuilder tsv = new StringBuilder("second\tGET\tLIST\tWATCH\tPATCH\tOTHER\tbytes_in\tbytes_out\twatch_events\topen_watches\n");
        for (long s = 0; s <= last; s++) {
            LoopbackApiServer.Second x = secs.getOrDefault(s, new LoopbackApiServer.Second());
            tsv.append(s);
            for (long r : x.requests) {
                tsv.append('\t').append(r);
            }
            tsv.append('\t').append(x.bytesIn).append('\t').append(x.bytesOut).append('\t').append(x.watchEvents)
                    .append('\t').append(x.openWatches).append('\n');
        }
        Files.writeString(WORK.getParent().resolve("fleet-" + TAG + ".tsv"), tsv);

        StringBuilder out = new StringBuilder();
        out.append("fleet bench: ").append(N).append(" agents, publish.ruleChangeSpread ").append(SPREAD)
                .append(", runtime ").append(RT).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" CPUs\n\n");
        summary.forEach((k, v) -> out.append(k).append(": ").append(v).append('\n'));
        out.append("patches in all: ").append(server.patches()).append(", bytes per patch (body): ")
                .append(server.patches() == 0 ? 0 : server.patchBytes() / server.patches()).append('\n');
        out.append("\nphase\tfrom s\tto s\tGET\tLIST\tWATCH\tPATCH\tOTHER\tpeak GET/s\tpeak LIST/s\tpeak WATCH/s\tpeak PATCH/s"
                + "\tpeak all/s\treq per node per hour\tbytes out per node per hour\topen watches (end)\tbytes per PATCH\n");
        for (int m = 0; m < marks.size(); m++) {
            String[] mk = marks.get(m).split("\t");
            long from = Long.parseLong(mk[0]);
            long to = m + 1 < marks.size() ? Long.parseLong(marks.get(m + 1).split("\t")[0]) : last + 1;
            long[] total = new long[LoopbackApiServer.Verb.values().length];
            long[] peak = new long[total.length];
            long peakAll = 0;
            long bytesOut = 0;
            long bytesIn = 0;
            long watchesAtEnd = 0;
            for (long s = from; s < to; s++) {
                LoopbackApiServer.Second x = secs.get(s);
                if (x == null) {
                    continue;
                }
                long all = 0;
                for (int v = 0; v < total.length; v++) {
                    total[v] += x.requests[v];
                    peak[v] = Math.max(peak[v], x.requests[v]);
                    all += x.requests[v];
                }
                peakAll = Math.max(peakAll, all);
                bytesOut += x.bytesOut;
                bytesIn += x.bytesIn;
                watchesAtEnd = x.openWatches;
            }
            long sum = java.util.Arrays.stream(total).sum();
            out.append(mk[1]).append('\t').append(from).append('\t').append(to);
            for (long t : total) {
                out.append('\t').append(t);
            }
            out.append('\t').append(peak[0]).append('\t').append(peak[1]).append('\t').append(peak[2]).append('\t')
                    .append(peak[3]).append('\t').append(peakAll).append('\t').append(perNodeHour(sum, to - from))
                    .append('\t').append(perNodeHour(bytesOut, to - from)).append('\t').append(watchesAtEnd)
                    .append('\t').append(total[3] == 0 ? 0 : bytesIn / total[3]).append('\n');
        }
        long warn = 0;
        long error = 0;
        long traces = 0;
        for (int i = 0; i < N; i++) {
            Path log = dir(i).resolve("agent.log");
            if (!Files.exists(log)) {
                continue;
            }
            for (String line : Files.readAllLines(log)) {
                warn += line.contains(" WARN ") ? 1 : 0;
                error += line.contains(" ERROR ") ? 1 : 0;
                traces += line.startsWith("\tat ") ? 1 : 0;
            }
        }
        out.append("\nagent logs, whole run: WARN lines ").append(warn).append(", ERROR lines ").append(error)
                .append(", stack trace lines ").append(traces).append('\n');
        Files.writeString(WORK.getParent().resolve("fleet-" + TAG + ".txt"), out);
        System.out.println(out);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path x : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }

    /** A Node as a kubelet registers and reports it: its labels, addresses, capacity, conditions, images. */
    private static ObjectNode kubeletNode(String name, int images) {
        ObjectNode n = LoopbackApiServer.JSON.createObjectNode();
        n.put("apiVersion", "v1").put("kind", "Node");
        ObjectNode md = n.putObject("metadata");
        md.put("name", name).put("uid", java.util.UUID.nameUUIDFromBytes(name.getBytes()).toString())
                .put("creationTimestamp", "2026-11-01T00:00:00Z");
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", "linux");
        labels.put("node.kubernetes.io/instance-type", "p5.48xlarge");
        labels.put("topology.kubernetes.io/region", "us-east-1");
        labels.put("topology.kubernetes.io/zone", "us-east-1a");
        ObjectNode l = md.putObject("labels");
        labels.forEach(l::put);
        md.putObject("annotations").put("node.alpha.kubernetes.io/ttl", "0")
                .put("volumes.kubernetes.io/controller-managed-attach-detach", "true");
        n.putObject("spec").put("podCIDR", "10.0.0.0/24").put("providerID", "aws:///us-east-1a/i-" + name);
        ObjectNode st = n.putObject("status");
        for (String k : List.of("capacity", "allocatable")) {
            st.putObject(k).put("cpu", "192").put("memory", "2113645888Ki").put("pods", "110")
                    .put("ephemeral-storage", "3750000000Ki").put("hugepages-1Gi", "0").put("hugepages-2Mi", "0");
        }
        ArrayNode conditions = st.putArray("conditions");
        for (String t : List.of("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")) {
            conditions.addObject().put("type", t).put("status", t.equals("Ready") ? "True" : "False")
                    .put("lastHeartbeatTime", "2026-11-27T00:00:00Z").put("lastTransitionTime", "2026-11-01T00:00:00Z")
                    .put("reason", t.equals("Ready") ? "KubeletReady" : "KubeletHasSufficient" + t)
                    .put("message", t.equals("Ready") ? "kubelet is posting ready status" : "kubelet has no " + t);
        }
        ArrayNode addresses = st.putArray("addresses");
        addresses.addObject().put("type", "InternalIP").put("address", "10.0.0.1");
        addresses.addObject().put("type", "Hostname").put("address", name);
        st.putObject("daemonEndpoints").putObject("kubeletEndpoint").put("Port", 10250);
        st.putObject("nodeInfo").put("machineID", "0123456789abcdef").put("systemUUID", "ec2-0123")
                .put("bootID", "b00t").put("kernelVersion", "6.1.0-27-cloud-amd64").put("osImage", "Debian GNU/Linux 12")
                .put("containerRuntimeVersion", "containerd://1.7.22").put("kubeletVersion", "v1.33.1")
                .put("kubeProxyVersion", "v1.33.1").put("operatingSystem", "linux").put("architecture", "amd64");
        ArrayNode imgs = st.putArray("images");
        for (int i = 0; i < images; i++) {
            ObjectNode img = imgs.addObject();
            img.putArray("names").add("registry.example.com/team/image-" + i + "@sha256:" + "%064x".formatted(i))
                    .add("registry.example.com/team/image-" + i + ":v1." + i);
            img.put("sizeBytes", 100_000_000L + i);
        }
        return n;
    }
}
