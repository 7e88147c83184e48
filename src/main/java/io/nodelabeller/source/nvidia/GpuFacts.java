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

    static final String NVML = "nvidia.nvml";
    static final String GPU = "nvidia.gpu";
    static final String MIG = "nvidia.mig";
    static final String MACHINE = "nvidia.machine";
    static final String PCI = "pci.device";
    /** Bytes in a MiB: NVML gives memory in bytes, GFD labels it in MiB. */
    static final long MIB = 1024 * 1024;

    /** Names go-nvlib skips by default: a display-only device on DGX stations, not a compute GPU. */
    private static final List<String> SKIPPED_NAMES = List.of("DGX Display", "NVIDIA DGX Display");

    /** One usable GPU. Integer and long fields are null when NVML did not give them. */
    record Gpu(int index, String name, String uuid, Long memoryBytes, Integer ccMajor, Integer ccMinor,
               boolean migCapable, boolean migEnabled, String clusterUuid, String cliqueId, String fabricState,
               String fabricStatus, List<Mig> migs) {
    }

    /** One MIG device; {@code profile} as NVIDIA tools print it ({@code 1g.10gb+me}). */
    record Mig(int parent, int index, String profile, Long memoryBytes, Map<String, String> attrs) {
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
        Map<String, String> nvml = f.attributes(NVML);
        String status = nvml.isEmpty() ? null : nvml.get("status");
        List<Mig> migs = new ArrayList<>();
        for (Instance m : f.instances(MIG)) {
            Integer parent = integer(m.get("parent"));
            Integer index = integer(m.get("index"));
            if (m.has("error") || parent == null || index == null || m.get("profile") == null) {
                continue;
            }
            Map<String, String> attrs = new TreeMap<>();
            m.attributes().forEach((k, v) -> {
                if (k.startsWith("attr.")) {
                    attrs.put(k.substring(5), v);
                }
            });
            migs.add(new Mig(parent, index, m.get("profile"), longValue(m.get("memory.total")), attrs));
        }
        List<Gpu> gpus = new ArrayList<>();
        Map<Integer, String> failed = new TreeMap<>();
        for (Instance g : f.instances(GPU)) {
            Integer index = integer(g.get("index"));
            if (index == null) {
                continue;
            }
            if (g.has("error") || g.get("name") == null) {
                failed.put(index, g.get("error") == null ? "no name" : g.get("error"));
                continue;
            }
            if (SKIPPED_NAMES.contains(g.get("name"))) {
                continue;
            }
            boolean migCapable = "true".equals(g.get("mig.capable"));
            boolean migEnabled = migCapable && "true".equals(g.get("mig.enabled"));
            gpus.add(new Gpu(index, g.get("name"), g.get("uuid"), longValue(g.get("memory.total")),
                    integer(g.get("compute.major")), integer(g.get("compute.minor")), migCapable, migEnabled,
                    g.get("fabric.clusterUuid"), g.get("fabric.cliqueId"), g.get("fabric.state"),
                    g.get("fabric.status"),
                    migs.stream().filter(m -> m.parent() == index).toList()));
        }
        List<String> classes = new ArrayList<>();
        for (Instance d : f.instances(PCI)) {
            String cls = d.get("class");
            if (NvidiaPci.VENDOR.equalsIgnoreCase(d.get("vendor")) && cls != null && cls.startsWith("03")) {
                classes.add(cls.toLowerCase(java.util.Locale.ROOT));
            }
        }
        return new GpuFacts(f, status, nvml.get("error"), nvml.get("driverVersion"),
                integer(nvml.get("cudaDriverVersion")), List.copyOf(gpus), failed,
                f.attribute(MACHINE, "product_name"), List.copyOf(classes));
    }

    static Integer integer(String s) {
        Long v = longValue(s);
        return v == null || v != v.intValue() ? null : v.intValue();
    }

    static Long longValue(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Long.valueOf(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
