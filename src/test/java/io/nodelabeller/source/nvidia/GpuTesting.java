package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.config.ReplicatedDevices;
import io.nodelabeller.config.ReplicatedResource;
import io.nodelabeller.config.ReplicatedResources;
import io.nodelabeller.config.Sharing;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.testing.GpuLayout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Helpers of the GPU label tests: run the labeler on a layout, write expected label sets compactly. */
final class GpuTesting {

    static final Instant START = Instant.parse("2026-11-22T09:00:00Z");
    static final String TS = String.valueOf(START.getEpochSecond());

    private GpuTesting() {
    }

    /** The labels for {@code layout} under {@code dp}, keys without "nvidia.com/"; each must pass LabelValidity. */
    static SortedMap<String, String> labels(GpuLayout layout, DevicePluginConfig dp) {
        return labels(new NvidiaLabeler(dp, START, false), layout.features());
    }

    static SortedMap<String, String> labels(NvidiaLabeler labeler, Features features) {
        SortedMap<String, String> out = new TreeMap<>();
        for (Label l : labeler.labels(features)) {
            assertTrue(l.key().startsWith("nvidia.com/"), l.key());
            assertNull(io.nodelabeller.catalog.Catalog.labelValidity(io.nodelabeller.config.Config.DEFAULT.core()).problem(l.key(), l.value()), l.toString());
            assertTrue(l.evidence() != null && !l.evidence().isBlank(), "evidence of " + l);
            out.put(l.key().substring("nvidia.com/".length()), l.value());
        }
        return out;
    }

    /** The evidence of every label, by key without prefix. */
    static Map<String, String> evidence(GpuLayout layout, DevicePluginConfig dp) {
        Map<String, String> out = new TreeMap<>();
        new NvidiaLabeler(dp, START, false).labels(layout.features())
                .forEach(l -> out.put(l.key().substring("nvidia.com/".length()), l.evidence()));
        return out;
    }

    /** "k=v" lines into a sorted map; a line without '=' is skipped (for readability of tables). */
    static SortedMap<String, String> set(String... kv) {
        SortedMap<String, String> out = new TreeMap<>();
        for (String s : kv) {
            int eq = s.indexOf('=');
            out.put(s.substring(0, eq), s.substring(eq + 1));
        }
        return out;
    }

    static SortedMap<String, String> plus(Map<String, String> base, String... kv) {
        SortedMap<String, String> out = new TreeMap<>(base);
        out.putAll(set(kv));
        return out;
    }

    /** node-labeller's labels beyond GFD's, as {@link GpuLabels} declares them. */
    static boolean beyondGfd(String key) {
        return GpuLabels.isBeyondGfd(key);
    }

    /** The labels GFD also makes: {@code all} without {@link #beyondGfd} keys, for comparisons with GFD's vectors. */
    static SortedMap<String, String> gfd(Map<String, String> all) {
        SortedMap<String, String> out = new TreeMap<>(all);
        out.keySet().removeIf(GpuTesting::beyondGfd);
        return out;
    }

    /** Only the resource labeler's keys (GFD's internal/lm/mig-strategy_test.go and resource_test.go compare those alone). */
    static SortedMap<String, String> resource(Map<String, String> all) {
        SortedMap<String, String> out = new TreeMap<>();
        all.forEach((k, v) -> {
            boolean gpu = k.startsWith("gpu.") && !beyondGfd(k)
                    && !List.of("gpu.machine", "gpu.mode", "gpu.present", "gpu.clique").contains(k);
            if (gpu || k.equals("mig.strategy") || k.startsWith("mig-")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** GFD's base label set (cmd/gpu-feature-discovery/main_test.go) without the vGPU labels. */
    static final SortedMap<String, String> B = set(
            "gfd.timestamp=" + TS,
            "gpu.machine=product-name",
            "cuda.driver.major=400", "cuda.driver.minor=300", "cuda.driver.rev=",
            "cuda.driver-version.major=400", "cuda.driver-version.minor=300", "cuda.driver-version.revision=",
            "cuda.driver-version.full=400.300",
            "cuda.runtime.major=8", "cuda.runtime.minor=0",
            "cuda.runtime-version.major=8", "cuda.runtime-version.minor=0", "cuda.runtime-version.full=8.0",
            "mps.capable=false", "gpu.mode=unknown");

    static DevicePluginConfig dp(String yaml) {
        try {
            return ConfigLoader.parseDevicePlugin("dp.yaml", yaml);
        } catch (ConfigException e) {
            throw new AssertionError(e.problems().toString(), e);
        }
    }

    static DevicePluginConfig strategy(String mig) {
        return dp("flags: {migStrategy: " + mig + "}\n");
    }

    /** A config built as GFD's unit tests do, without the plugin's rename normalisation. */
    static DevicePluginConfig sharing(String mig, boolean mps, ReplicatedResource... resources) {
        ReplicatedResources r = new ReplicatedResources(false, null, List.of(resources));
        return new DevicePluginConfig("test", mig, null, DevicePluginConfig.Gfd.DEFAULT,
                mps ? new Sharing(null, r) : new Sharing(r, null));
    }

    static ReplicatedResource res(String name, int replicas) {
        return new ReplicatedResource(name, null, ReplicatedDevices.ALL, replicas);
    }

    static ReplicatedResource res(String name, int replicas, String rename) {
        return new ReplicatedResource(name, rename, ReplicatedDevices.ALL, replicas);
    }

    static List<String> keys(Map<String, String> m) {
        return new ArrayList<>(m.keySet());
    }
}
