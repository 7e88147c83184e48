package io.nodelabeller.bench;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static io.nodelabeller.bench.BenchRuntime.RT;
import static io.nodelabeller.bench.BenchRuntime.RUNS;
import static io.nodelabeller.bench.BenchRuntime.assumeBuilt;
import static io.nodelabeller.bench.BenchRuntime.exec;
import static io.nodelabeller.bench.BenchRuntime.median;
import static io.nodelabeller.bench.BenchRuntime.process;
import static io.nodelabeller.bench.BenchRuntime.report;
import static io.nodelabeller.bench.BenchRuntime.warmPageCache;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The floor under the agent's memory and start-up on the production runtime (bin/build-runtime.sh → {@code
 * bench.runtime}, default target/rt, and its bin/jvm.options): {@link Floor}, a program that only reads a labelled
 * Node over TLS with the JDK's HTTP client and Jackson databind, given a class-data archive of its own classes trained
 * the way the agent's is. Against the fabric8 mock API server over TLS on loopback. It reports the floor's VmRSS and
 * RssAnon at rest (last 10 s of {@code bench.seconds}, default 60, at one request a second) and its time to the first
 * response alternated with {@code java -version} of the same runtime. bench/footprint.sh runs it after FootprintBench;
 * results go to stdout and target/bench/footprint.txt.
 */
class FloorBench {

    private static final int SECONDS = Integer.getInteger("bench.seconds", 60);

    @TempDir
    static Path tmp;

    @BeforeAll
    static void needsRuntime() throws Exception {
        assumeBuilt();
    }

    @Test
    void aNodeReadOverTlsWithJacksonOnTheProductionRuntime() throws Exception {
        MockWebServer web = new MockWebServer();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), web, new HashMap<>(),
                new KubernetesCrudDispatcher(), true);
        server.init(InetAddress.getLoopbackAddress(), 0);
        try (KubernetesClient client = server.createClient()) {
            // a labelled GPU node: 120 labels, as many as the gpu-server tree gets
            Map<String, String> labels = new TreeMap<>();
            for (int i = 0; i < 120; i++) {
                labels.put("feature.node.kubernetes.io/pci-" + i + ".present", "true");
            }
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("bench-node").withLabels(labels)
                    .endMetadata().build()).create();
            String url = client.getMasterUrl() + "api/v1/nodes/bench-node";
            String ca = web.getSelfSignedCertificate().certificatePath();
            String classpath = floorJar() + ":" + jarOf(ObjectMapper.class) + ":" + jarOf(JsonFactory.class) + ":"
                    + jarOf(JsonAutoDetect.class);
            Path classes = tmp.resolve("floor.lst");
            Path archive = tmp.resolve("floor.jsa");
            // trained and dumped as bin/build-runtime.sh does the agent's: the classes a run loads, with the same flags
            exec(tmp, floor(classpath, List.of("-Xshare:off", "-XX:DumpLoadedClassList=" + classes), url, ca, 3), 60);
            exec(tmp, java(List.of("-Xshare:dump", "-XX:SharedClassListFile=" + classes,
                    "-XX:SharedArchiveFile=" + archive, "-cp", classpath)), 120);
            List<String> withArchive = List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:on");

            List<Double> version = new ArrayList<>();
            List<Double> response = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                long start = System.nanoTime();
                exec(tmp, List.of(RT.resolve("runtime/bin/java").toString(), "-version"), 60);
                version.add((System.nanoTime() - start) / 1e9);
                response.add(secondsToFirstResponse(floor(classpath, withArchive, url, ca, 0)));
            }
            double v = median(version);
            report(String.format("floor (a Node read over TLS with the JDK HTTP client and Jackson databind, %d classes"
                    + " archived): first response after median %.3f s (%.1fx java -version, median %.3f s) %s",
                    Files.readAllLines(classes).stream().filter(l -> !l.startsWith("#") && !l.startsWith("@")).count(),
                    median(response), median(response) / v, v, response));

            warmPageCache(RT, archive); // as FootprintBench measures the agent
            Process p = process(floor(classpath, withArchive, url, ca, SECONDS + 30))
                    .redirectOutput(tmp.resolve("floor.log").toFile()).start();
            List<Long> rss = new ArrayList<>();
            List<Long> anon = new ArrayList<>();
            for (int s = 0; s < SECONDS && p.isAlive(); s++) {
                Thread.sleep(1000);
                Map<String, String> status = Proc.status(p.pid());
                rss.add(Proc.kib(status.get("VmRSS")));
                anon.add(Proc.kib(status.get("RssAnon")));
            }
            assertTrue(p.isAlive(), Files.readString(tmp.resolve("floor.log")));
            String mappings = Proc.smapsByMapping(p.pid(), "Anonymous", 6);
            p.destroyForcibly();
            int n = rss.size();
            report(String.format("floor at one request a second, %d s: VmRSS last 10 s %s KiB, RssAnon %s KiB", SECONDS,
                    rss.subList(n - 10, n), anon.subList(n - 10, n)));
            report(mappings);
        } finally {
            server.destroy();
        }
    }

    /** Floor.class alone in a jar: a class-data archive takes classes from jars, not directories. */
    private static Path floorJar() throws Exception {
        Path jar = tmp.resolve("floor.jar");
        String name = Floor.class.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             var in = Floor.class.getClassLoader().getResourceAsStream(name)) {
            out.putNextEntry(new JarEntry(name));
            in.transferTo(out);
        }
        return jar;
    }

    private static String jarOf(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static List<String> java(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(RT.resolve("runtime/bin/java").toString(),
                "@" + RT.resolve("jvm.options").toAbsolutePath()));
        cmd.addAll(args);
        return cmd;
    }

    private static List<String> floor(String classpath, List<String> flags, String url, String ca, int seconds) {
        List<String> args = new ArrayList<>(flags);
        args.addAll(List.of("-cp", classpath, Floor.class.getName(), url, ca, Integer.toString(seconds)));
        return java(args);
    }

    /** Seconds from starting {@code cmd} to its "response" line. */
    private static double secondsToFirstResponse(List<String> cmd) throws Exception {
        long start = System.nanoTime();
        Process p = process(cmd).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(line != null && line.startsWith("response"), "the floor answered: " + line);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            return seconds;
        }
    }

}
