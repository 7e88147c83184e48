package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code print} (and {@code explain}) in a fresh JVM on the shaded jar never load the Kubernetes client, Quartz,
 * the Prometheus client or the JDK's HTTP server (BRIEF: keep fabric8 off that path): checked with
 * {@code -verbose:class}, which names every class as it is loaded. Needs target/node-labeller.jar, so failsafe
 * runs it after {@code package}.
 */
class PrintLoadsNoDaemonClassesIT {

    private static final Path JAR = Path.of(System.getProperty("nodeLabeller.jar", "target/node-labeller.jar"));
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");
    private static final List<String> FORBIDDEN = List.of("io.fabric8.", "org.quartz.", "io.prometheus.",
            "com.sun.net.httpserver.");
    private static final Pattern LOADED = Pattern.compile("\\[class,load\\] (\\S+) ");

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"print", "explain"})
    void loadsNoDaemonClass(String command) throws Exception {
        assertTrue(Files.isRegularFile(JAR), "no shaded jar at " + JAR + " (failsafe runs after package)");
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(JAVA.toString(), "-verbose:class", "-Djna.tmpdir=" + tmp, "-jar",
                JAR.toString(), command, "--no-timestamp", "--host-root", Hosts.root("cloud-vm").toString(),
                "--nvml-library", Cli.NO_NVML) // never a GPU machine's real driver
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            fail(command + " did not finish in 60 s");
        }
        String stdout = Files.readString(out);
        assertEquals(0, p.exitValue(), command + "\n" + Files.readString(err));
        assertTrue(stdout.contains("feature.node.kubernetes.io/kernel-version.full"), stdout);

        List<String> loaded = new ArrayList<>();
        Matcher m = LOADED.matcher(stdout);
        while (m.find()) {
            loaded.add(m.group(1));
        }
        // the check sees application classes at all (else it could never fail)
        assertTrue(loaded.contains("io.nodelabeller.cli.Main") && loaded.contains("picocli.CommandLine"),
                "no class-load lines found in\n" + stdout);
        List<String> bad = loaded.stream().filter(c -> FORBIDDEN.stream().anyMatch(c::startsWith)).toList();
        assertEquals(List.of(), bad, command + " loaded daemon classes");
    }
}
