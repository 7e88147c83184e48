package io.nodelabeller.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the shaded jar registers for its libraries' service loaders, and that it still works: fabric8 is told about
 * three Kubernetes kinds only (its model jars list ~340, and its deserializer loads all of them, ~600 classes, at
 * the first watch event), and logback is configured by {@code LogSetup}, not by an XML file. Needs
 * target/node-labeller.jar, so failsafe runs it after {@code package}.
 */
class ShadedJarIT {

    private static final Path JAR = Path.of(System.getProperty("nodeLabeller.jar", "target/node-labeller.jar"));
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @TempDir
    Path tmp;

    @Test
    void registersOnlyTheKindsTheAgentReadsAndConfiguresLoggingInCode() throws Exception {
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + JAR.toAbsolutePath().toUri()), Map.of())) {
            List<String> kinds = Files.readAllLines(jar.getPath("META-INF/services/io.fabric8.kubernetes.api.model.KubernetesResource"))
                    .stream().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
            assertEquals(List.of("io.fabric8.kubernetes.api.model.Node", "io.fabric8.kubernetes.api.model.NodeList",
                    "io.fabric8.kubernetes.api.model.Status"), kinds);
            assertEquals(List.of("io.nodelabeller.cli.LogSetup"),
                    Files.readAllLines(jar.getPath("META-INF/services/ch.qos.logback.classic.spi.Configurator")));
            assertFalse(Files.exists(jar.getPath("logback.xml")));
            // the model classes themselves stay: a kind not registered is still readable by its class
            assertTrue(Files.exists(jar.getPath("io/fabric8/kubernetes/api/model/apps/DaemonSet.class")));
        }
    }

    /**
     * The node watch's events as an API server sends them (a Node for ADDED/MODIFIED/BOOKMARK, a Status for ERROR,
     * k8s.io/apimachinery pkg/apis/meta/v1 WatchEvent) are still read into their own classes, and reading them loads
     * a few dozen model classes instead of all.
     */
    @Test
    void watchEventsAreStillTypedAndLoadFewModelClasses() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "no shaded jar at " + JAR + " (failsafe runs after package)");
        String node = "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n1\","
                + "\"resourceVersion\":\"42\",\"labels\":{\"kubernetes.io/os\":\"linux\"}},\"spec\":{},\"status\":{}}}";
        String status = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                + "\"status\":\"Failure\",\"message\":\"too old resource version: 1 (42)\",\"reason\":\"Expired\",\"code\":410}}";
        Path out = tmp.resolve("out.txt");
        ProcessBuilder pb = new ProcessBuilder(JAVA.toString(), "-verbose:class",
                "-cp", JAR + ":" + Path.of("target/test-classes"), WatchEventProbe.class.getName(), node, status)
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), text);
        assertTrue(text.contains("object io.fabric8.kubernetes.api.model.Node\n"), text);
        assertTrue(text.contains("object io.fabric8.kubernetes.api.model.Status\n"), text);
        long models = text.lines().filter(l -> l.contains("[class,load] io.fabric8.kubernetes.api.model.")).count();
        assertTrue(models < 200, models + " model classes loaded (all kinds registered again?)");
    }
}
