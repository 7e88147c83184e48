package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.feature.NvidiaPci;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nvidia and pci features the GPU labelers read (docs/gpu.md), parsed once per cycle into plain
 * values. GPUs that could not be queried, and the display-only "DGX Display" devices GFD skips, are set aside:
 * only {@link #gpus()} feed the labels.
 *
 * @param nvmlStatus  {@code ok}, {@code unavailable}, or null when the nvidia source did not run
 * @param gpus        the usable GPUs, in index order, each with its MIG devices
 * @param failedGpus  GPUs NVML could not query: index → error
 * @param pciClasses  PCI class (4 hex digits) of every NVIDIA display/3D controller (vendor 10de, class 03xx)
 */
record GpuFacts(Features features, String nvmlStatus, String nvmlError, String driverVersion, Integer cudaDriverVersion,
                List<Gpu> gpus, Map<Integer, String> failedGpus, String machine, List<String> pciClasses) {

    static final String NVML = "nvidia." + NvidiaFeatures.NVML;
    static final String GPU = "nvidia." + NvidiaFeatures.GPU;
    static final String MIG = "nvidia." + NvidiaFeatures.MIG;
    static final String MACHINE = "nvidia." + NvidiaFeatures.MACHINE;
    static final String PCI = "pci.device";
    /** Bytes in a MiB: NVML gives memory in bytes, GFD labels it in MiB. */
    static final long MIB = 1024 * 1024;

    /** Names go-nvlib skips by default: a display-only device on DGX stations, not a compute GPU. */
    private static final List<String> SKIPPED_NAMES = List.of("DGX Display", "NVIDIA DGX Display");

    /**
     * One usable GPU: NVML's values ({@code nvml}, by name; null where NVML did not give one), whether MIG is
     * enabled, and its MIG devices.
     */
    record Gpu(NvidiaFeatures.Gpu nvml, boolean migEnabled, List<Mig> migs) {

        int index() {
            return nvml.index();
        }

        String name() {
            return nvml.name();
        }

        Long memoryBytes() {
            return nvml.memoryTotal();
        }

        Integer ccMajor() {
            return nvml.computeMajor();
        }

        Integer ccMinor() {
            return nvml.computeMinor();
        }

        boolean migCapable() {
            return nvml.migCapable();
        }

        NvidiaFeatures.Fabric fabric() {
            return nvml.fabric();
        }
    }

    /** One MIG device; {@code profile} as NVIDIA tools print it ({@code 1g.10gb+me}); attributes by field name. */
    record Mig(int parent, int index, String profile, Long memoryBytes, Map<String, Long> attrs) {
    }

    /** Whether the PCI scan found an NVIDIA GPU (vendor 10de, class 0300 or 0302). */
    boolean pciGpuPresent() {
        return pciClasses.stream().anyMatch(NvidiaPci::isGpuClass);
    }

    /** Whether NVML answered and found at least one usable GPU: the condition for every NVML-derived label. */
    boolean nvmlUsable() {
        return "ok".equals(nvmlStatus) && !gpus.isEmpty();
    }

    /** The last snapshot's facts: the GPU labelers of one cycle share them instead of parsing once each. */
    private static GpuFacts last;

    /** The facts of snapshot {@code f}, parsed once per snapshot (by identity: snapshots are immutable). */
    static synchronized GpuFacts of(Features f) {
        if (last == null || last.features() != f) {
            last = parse(f);
        }
        return last;
    }

    private static GpuFacts parse(Features f) {
        NvidiaFeatures.Nvml nvml = NvidiaFeatures.Nvml.from(f.attributes(NVML));
        List<Mig> migs = new ArrayList<>();
        for (Instance i : f.instances(MIG)) {
            NvidiaFeatures.Mig m = NvidiaFeatures.Mig.from(i);
            if (m != null && m.error() == null && m.profile() != null) {
                migs.add(new Mig(m.parent(), m.index(), m.profile(), m.memoryTotal(), m.attrs()));
            }
        }
        List<Gpu> gpus = new ArrayList<>();
        Map<Integer, String> failed = new TreeMap<>();
        for (Instance i : f.instances(GPU)) {
            NvidiaFeatures.Gpu g = NvidiaFeatures.Gpu.from(i);
            if (g == null) {
                continue;
            }
            if (g.error() != null || g.name() == null) {
                failed.put(g.index(), g.error() == null ? "no name" : g.error());
                continue;
            }
            if (SKIPPED_NAMES.contains(g.name())) {
                continue;
            }
            boolean migEnabled = g.migCapable() && Boolean.TRUE.equals(g.migEnabled());
            gpus.add(new Gpu(g, migEnabled, migs.stream().filter(m -> m.parent() == g.index()).toList()));
        }
        List<String> classes = new ArrayList<>();
        for (Instance d : f.instances(PCI)) {
            String cls = d.get("class");
            if (NvidiaPci.VENDOR.equalsIgnoreCase(d.get("vendor")) && cls != null && cls.startsWith("03")) {
                classes.add(cls.toLowerCase(java.util.Locale.ROOT));
            }
        }
        return new GpuFacts(f, nvml == null ? null : nvml.ok() ? "ok" : "unavailable", nvml == null ? null : nvml.error(),
                nvml == null ? null : nvml.driverVersion(), nvml == null ? null : nvml.cudaDriverVersion(),
                List.copyOf(gpus), failed, f.attribute(MACHINE, NvidiaFeatures.PRODUCT_NAME), List.copyOf(classes));
    }
}
