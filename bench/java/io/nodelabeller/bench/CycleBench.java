package io.nodelabeller.bench;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * The cost of one cycle's discovery and labelling (every source, the NVML session included), without JMH: run
 * {@code warmup} times, then {@code runs} timed runs, and print median, p90, min and max in milliseconds. Meant to
 * run in the production runtime and flags (bench/footprint.sh does): {@code java @jvm.options -cp
 * node-labeller.jar:target/test-classes io.nodelabeller.bench.CycleBench HOST_ROOT NVML_LIBRARY WARMUP RUNS}.
 */
public final class CycleBench {

    private CycleBench() {
    }

    public static void main(String[] args) {
        Path root = Path.of(args[0]);
        String nvml = args[1].isEmpty() ? null : args[1];
        int warmup = Integer.parseInt(args[2]);
        int runs = Integer.parseInt(args[3]);
        Config config = Config.DEFAULT;
        Options options = new Options(root, nvml, null, true, null);
        Discovery discovery = new Discovery(new HostFs(root),
                Catalog.sources(config, options, config.core().featureSources()));
        Labelling labelling = Catalog.labelling(config, options);
        int labels = 0;
        for (int i = 0; i < warmup; i++) {
            labels = labelling.label(discovery.discover().features()).asMap().size();
        }
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            labels = labelling.label(discovery.discover().features()).asMap().size();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        System.out.printf("cycle (discover+label, %d labels, %d runs after %d warm-up): median %.2f ms, p90 %.2f ms,"
                        + " min %.2f ms, max %.2f ms%n", labels, runs, warmup, ms[runs / 2], ms[(int) (runs * 0.9)],
                ms[0], ms[runs - 1]);
    }
}
