package io.nodelabeller.bench;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;

import java.io.File;
import java.io.FileInputStream;
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
 * One discovery+labelling cycle against plain loops that do the cycle's file work and nothing else, over the same
 * files (the list {@link FootprintBench} recorded from a cycle with JFR's file-read events):
 * <ul>
 *   <li>the plain loop: reads each file whole and lists their directories once each (more listing than the sources
 *       do: each device's own directory is listed too);</li>
 *   <li>the reads alone, as plain Java reads a file ({@code Files.newInputStream(f).readAllBytes()}): less than the
 *       sources must do, they list directories to find devices;</li>
 *   <li>the reads alone the cheapest way found (a {@code FileInputStream} into one 256-byte array, the rest only
 *       when there is more: how {@code HostFs} reads);</li>
 *   <li>the same with a {@code stat} before each open, as {@code HostFs} does so that a FIFO is never opened (opening
 *       one blocks): the floor for a reader that must not hang, before the probes of optional files that are missing.</li>
 * </ul>
 * All warm, in one JVM with the production flags, alternating run by run so that the machine's noise hits them alike.
 * Prints the medians and the cycle's ratio to each.
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
        double[] cheapest = new double[runs];
        double[] checked = new double[runs];
        List<File> asFiles = files.stream().map(Path::toFile).toList();
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            labels = labelling.label(discovery.discover().features()).asMap().size();
            long t1 = System.nanoTime();
            bytes = plain(files, dirs);
            long t2 = System.nanoTime();
            plain(files, Set.of());
            long t3 = System.nanoTime();
            small(asFiles, false);
            long t4 = System.nanoTime();
            small(asFiles, true);
            long t5 = System.nanoTime();
            cycle[i] = (t1 - t0) / 1e6;
            plain[i] = (t2 - t1) / 1e6;
            reads[i] = (t3 - t2) / 1e6;
            cheapest[i] = (t4 - t3) / 1e6;
            checked[i] = (t5 - t4) / 1e6;
        }
        for (double[] a : List.of(cycle, plain, reads, cheapest, checked)) {
            Arrays.sort(a);
        }
        double c = cycle[runs / 2];
        System.out.printf("big host %s: %d files (%d KiB) in %d directories, %d labels; cycle median %.2f ms (p90 %.2f);"
                        + " plain loop (reads + one listing per directory) median %.2f ms: %.2fx; reads alone median"
                        + " %.2f ms: %.2fx; reads alone the cheapest way median %.2f ms: %.2fx; the same with a stat"
                        + " before each open median %.2f ms: %.2fx%n", root.getFileName(), files.size(), bytes / 1024,
                dirs.size(), labels, c, cycle[(int) (runs * 0.9)], plain[runs / 2], c / plain[runs / 2],
                reads[runs / 2], c / reads[runs / 2], cheapest[runs / 2], c / cheapest[runs / 2],
                checked[runs / 2], c / checked[runs / 2]);
    }

    /** Reads every file into one 256-byte array, then the rest when there is more; {@code check}: a stat first. */
    private static long small(List<File> files, boolean check) throws IOException {
        long total = 0;
        byte[] head = new byte[256];
        for (File f : files) {
            if (check && !f.isFile()) {
                continue;
            }
            try (InputStream in = new FileInputStream(f)) {
                int n = in.readNBytes(head, 0, head.length);
                total += n == head.length ? n + in.readAllBytes().length : n;
            }
        }
        return total;
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
