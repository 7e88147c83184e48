package io.nodelabeller.nvml;

import io.nodelabeller.testing.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JNA unpacks its own native library before any NVML call. On a read-only root file system (the DaemonSet) that
 * needs {@code -Djna.tmpdir} on a writable mount; without any writable place NVML must come out "unavailable",
 * never crash. Each case runs in a fresh JVM whose home and java.io.tmpdir cannot be written (they lie under
 * /dev/null, which even root cannot create directories in).
 */
class ReadOnlyRootTest {

    @TempDir
    Path tmp;

    /** Opens NVML and prints the outcome on one line. */
    public static final class Probe {
        public static void main(String[] args) {
            try (Nvml nvml = Nvml.open(args[0])) {
                System.out.println("ok " + nvml.deviceCount());
            } catch (NvmlException e) {
                System.out.println("unavailable " + e.code() + ": " + e.getMessage());
            }
        }
    }

    private String probe(Path lib, String... jvmOptions) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Duser.home=/dev/null/home", "-Djava.io.tmpdir=/dev/null/tmp"));
        cmd.addAll(List.of(jvmOptions));
        cmd.add(Probe.class.getName());
        cmd.add(lib.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("XDG_CACHE_HOME");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out.trim();
    }

    @Test
    void jnaTmpdirOnAWritableMountIsEnough() throws Exception {
        Path lib = FakeNvml.nvml().gpus(2, FakeNvml.t4()).install(tmp.resolve("lib"));
        Path jnaTmp = tmp.resolve("emptydir/jna");
        assertEquals("ok 2", probe(lib, "-Djna.tmpdir=" + jnaTmp, "-Djnidispatch.preserve=true"));
        try (Stream<Path> files = Files.list(jnaTmp)) {
            assertEquals(1, files.count(), "JNA's dispatch library was unpacked into jna.tmpdir");
        }
    }

    @Test
    void noWritablePlaceAtAllIsUnavailableNotACrash() throws Exception {
        Path lib = FakeNvml.nvml().gpus(2, FakeNvml.t4()).install(tmp.resolve("lib"));
        String out = probe(lib);   // JNA logs its own warnings first; the probe's answer is the last line
        String answer = out.substring(out.lastIndexOf('\n') + 1);
        assertTrue(answer.startsWith("unavailable 12: JNA native support cannot be loaded (set -Djna.tmpdir to a writable "
                + "directory)"), out);
    }
}
