package io.nodelabeller.bench;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One discovery+labelling cycle against a plain loop that does the cycle's file work and nothing else: reads the
 * same files (the list {@link FootprintBench} recorded from a cycle with JFR's file-read events) and lists their
 * directories once each (more listing than the sources do: each device's own directory is listed too), and the same
 * reads alone (less than the sources must do: they list directories to find devices). Both warm, in one JVM with the production flags, alternating run by run so that the
 * machine's noise hits both alike. Prints the medians and their ratio.
 * {@code java @jvm.options -cp node-labeller.jar:target/test-classes io.nodelabeller.bench.BigHostBench HOST_ROOT READS_FILE WARMUP RUNS}
 */
public final class BigHostBench {

    private BigHostBench() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        List<Path> files = Files.readAllLines(Path.of(args[1])).stream().map(Path::of).toList();
        Set<Path> dirs = new LinkedHashSet<>();
        files.forEach(f -> dirs.add(f.getParent()));
        int warmup = Integer.parseInt(args[2]);
        int runs = Integer.parseInt(args[3]);
        Config config = Config.DEFAULT;
        Options options = new Options(root, "/nonexistent/libnvidia-ml.so.1", null, true, null);
        Discovery discovery = new Discovery(new HostFs(root), Catalog.sources(config, options, config.core().featureSources()));
        Labelling labelling = Catalog.labelling(config, options);
        int labels = 0;
        long bytes = 0;
        for (int i = 0; i < warmup; i++) {
            labels = labelling.label(discovery.discover().features()).asMap().size();
            bytes = plain(files, dirs);
        }
        double[] cycle = new double[runs];
        double[] plain = new double[runs];
        double[] reads = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            labels = labelling.label(discovery.discover().features()).asMap().size();
            long t1 = System.nanoTime();
            bytes = plain(files, dirs);
            long t2 = System.nanoTime();
            plain(files, Set.of());
            long t3 = System.nanoTime();
            cycle[i] = (t1 - t0) / 1e6;
            plain[i] = (t2 - t1) / 1e6;
            reads[i] = (t3 - t2) / 1e6;
        }
        Arrays.sort(cycle);
        Arrays.sort(plain);
        Arrays.sort(reads);
        System.out.printf("big host %s: %d files (%d KiB) in %d directories, %d labels; cycle median %.2f ms (p90 %.2f);"
                        + " plain loop (reads + one listing per directory) median %.2f ms: %.2fx; reads alone median"
                        + " %.2f ms: %.2fx%n", root.getFileName(), files.size(), bytes / 1024, dirs.size(), labels,
                cycle[runs / 2], cycle[(int) (runs * 0.9)], plain[runs / 2], cycle[runs / 2] / plain[runs / 2],
                reads[runs / 2], cycle[runs / 2] / reads[runs / 2]);
    }

    /** Lists every directory, reads every file whole; returns the bytes read (so that nothing is optimised away). */
    private static long plain(List<Path> files, Set<Path> dirs) throws IOException {
        long total = 0;
        for (Path dir : dirs) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
                for (Path p : s) {
                    total += p.getFileName().toString().length();
                }
            }
        }
        for (Path f : files) {
            try (InputStream in = Files.newInputStream(f)) {
                total += in.readAllBytes().length;
            }
        }
        return total;
    }
}
