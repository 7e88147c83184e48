package io.nodelabeller.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the benchmarks of bench/footprint.sh share: the production runtime they measure (bin/build-runtime.sh →
 * {@code bench.runtime}, default target/rt), how many times a start is repeated ({@code bench.runs}), and the report
 * they append to (target/bench/footprint.txt).
 */
final class BenchRuntime {

    static final Path RT = Path.of(System.getProperty("bench.runtime", "target/rt"));
    static final int RUNS = Integer.getInteger("bench.runs", 5);
    static final Path REPORT = Path.of("target/bench/footprint.txt");

    private BenchRuntime() {
    }

    /** Skips the benchmark where no runtime was built; makes the report's directory. */
    static void assumeBuilt() throws Exception {
        assumeTrue(Files.isExecutable(RT.resolve("runtime/bin/java")),
                "no runtime at " + RT + ": run bin/build-runtime.sh target/node-labeller.jar " + RT);
        Files.createDirectories(REPORT.getParent());
    }

    /** The C library's open, posix_fadvise and close, to drop a file's pages from the page cache. */
    private interface LibC extends com.sun.jna.Library {
        LibC C = com.sun.jna.Native.load("c", LibC.class);
        int POSIX_FADV_DONTNEED = 4; // <bits/fcntl-linux.h>

        int open(String path, int flags);

        int posix_fadvise(int fd, long offset, long len, int advice);

        int close(int fd);
    }

    /**
     * Drops every file under {@code roots} (a runtime, an archive) from the page cache and reads it back once, so that
     * each run starts with all of them cached the same way, whatever wrote or read them before. A process's
     * file-backed RSS depends on how the file sits in the page cache, not only on what the process touches: the kernel
     * maps cached pages around each page touched ("fault-around"), and with large folios (ext4 since Linux 6.16) a
     * whole folio at once, and the folios' sizes come from how the file was written or read ahead. Measured: libjvm.so
     * 18 MiB resident in a runtime fresh from jlink, 13.6 MiB in the same work after dropping and re-reading it; a
     * runtime partly evicted shows less. Without this, runtimes built at different times compare unfairly.
     */
    static void warmPageCache(Path... roots) throws Exception {
        byte[] buffer = new byte[1 << 20];
        for (Path root : roots) {
            try (var files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    int fd = LibC.C.open(f.toString(), 0); // O_RDONLY
                    if (fd >= 0) {
                        LibC.C.posix_fadvise(fd, 0, 0, LibC.POSIX_FADV_DONTNEED);
                        LibC.C.close(fd);
                    }
                    try (var in = Files.newInputStream(f)) {
                        while (in.read(buffer) > 0) {
                            // reading is the point
                        }
                    }
                }
            }
        }
    }

    /**
     * A measured process: {@code cmd} with its output and errors together, without the JAVA_TOOL_OPTIONS of the JVM
     * running the benchmark (they would change what is measured, and the JVM announces them on stderr).
     */
    static ProcessBuilder process(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        return pb;
    }

    /**
     * Runs {@code cmd} to its end within {@code seconds}, its output kept in a file under {@code dir}: that output;
     * fails unless it exits 0.
     */
    static String exec(Path dir, List<String> cmd, int seconds) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = process(cmd).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "timed out: " + cmd);
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    /** One line to stdout and to the report. */
    static void report(String line) throws Exception {
        System.out.println(line);
        Files.writeString(REPORT, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
