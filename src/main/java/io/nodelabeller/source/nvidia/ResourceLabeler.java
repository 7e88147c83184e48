package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The full-GPU labels ({@code gpu.count}, {@code gpu.replicas}, {@code gpu.sharing-strategy}, {@code gpu.product},
 * {@code gpu.memory}, {@code gpu.family}, {@code gpu.compute.*}), then the MIG strategy's labels on top (GFD's
 * resource labeler). GPUs are grouped by NVML name; MIG-enabled GPUs of a model are labelled first, without
 * sharing, and the model's full GPUs overwrite them. <b>Fix</b>: with several models the one with the most GPUs
 * is described (ties: sanitised name ascending) instead of a random one, and its evidence says so; every model has
 * its own labels ({@link ModelLabeler}), so a node with several models is nothing to warn about.
 */
final class ResourceLabeler extends GpuLabeler {


    private final DevicePluginConfig dp;

    ResourceLabeler(DevicePluginConfig dp) {
        this.dp = dp;
    }

    @Override
    void label(GpuFacts facts, Out out) {
        Map<String, List<GpuFacts.Gpu>> byName = new LinkedHashMap<>();
        facts.gpus().forEach(g -> byName.computeIfAbsent(g.name(), k -> new java.util.ArrayList<>()).add(g));
        List<GpuFacts.Gpu> model = chooseModel(byName);
        String choice = byName.size() == 1 ? "" : "; of " + byName.size() + " models (" + models(byName) + ") the one with "
                + "the most GPUs (ties: name ascending); every model has its nvidia.com/gpu.model.* labels";
        List<GpuFacts.Gpu> enabled = model.stream().filter(GpuFacts.Gpu::migEnabled).toList();
        List<GpuFacts.Gpu> full = model.stream().filter(g -> !g.migEnabled()).toList();
        if (!enabled.isEmpty()) {
            fullGpu(out, enabled.get(0), model, choice, Share.migParent(Names.gpus(indices(enabled))));
        }
        if (!full.isEmpty()) {
            fullGpu(out, full.get(0), model, choice, Share.of(dp, "nvidia.com/gpu"));
        }
        switch (dp.migStrategy()) {
            case "single" -> MigLabels.single(facts, dp, out);
            case "mixed" -> MigLabels.mixed(facts, dp, out);
            default -> {
                // none: MIG devices are not resources of their own, so there is nothing more to say
            }
        }
    }

    private static List<GpuFacts.Gpu> chooseModel(Map<String, List<GpuFacts.Gpu>> byName) {
        return byName.values().stream()
                .min(Comparator.<List<GpuFacts.Gpu>>comparingInt(l -> -l.size())
                        .thenComparing(l -> Names.sanitise(l.get(0).name())))
                .orElseThrow();
    }

    /** "'NVIDIA A100-SXM4-40GB' (GPU 0,3), 'Tesla T4' (GPU 1,2,4)". */
    private static String models(Map<String, List<GpuFacts.Gpu>> byName) {
        StringBuilder models = new StringBuilder();
        byName.forEach((name, gpus) -> models.append(models.length() == 0 ? "" : ", ").append('\'').append(name)
                .append("' (").append(Names.gpus(indices(gpus))).append(')'));
        return models.toString();
    }

    static List<Integer> indices(List<GpuFacts.Gpu> gpus) {
        return gpus.stream().map(GpuFacts.Gpu::index).toList();
    }

    private static void fullGpu(Out out, GpuFacts.Gpu g, List<GpuFacts.Gpu> model, String choice, Share share) {
        String name = "nvmlDeviceGetName = '" + g.name() + "' (" + Names.gpus(indices(model)) + ")" + choice;
        out.put("gpu.count", model.size(), name);
        out.put("gpu.replicas", share.replicas(), share.evidence());
        out.put("gpu.sharing-strategy", share.strategy(), share.evidence());
        out.put("gpu.product", Names.product(g.name(), share.sharedSuffix() ? "SHARED" : ""),
                name + (share.sharedSuffix() ? "; -SHARED: " + share.evidence() : ""));
        if (g.memoryBytes() == null) {
            out.note("GPU " + g.index() + ": nvmlDeviceGetMemoryInfo failed or not supported; nvidia.com/gpu.memory is omitted");
        }
        if (g.ccMajor() == null || g.ccMinor() == null) {
            out.note("GPU " + g.index() + ": nvmlDeviceGetCudaComputeCapability failed; nvidia.com/gpu.family and "
                    + "gpu.compute.* are omitted");
        }
        perGpu(out, null, g);
    }

    /**
     * The per-GPU labels of GPU {@code g}: {@code gpu.memory} (MiB, when NVML gave a total of at least 1 MiB),
     * {@code gpu.family}, {@code gpu.compute.major} and {@code .minor} (when it gave a compute capability with a
     * major above 0) for {@code model} null; else their per-model twins for that model part ({@link ModelLabeler}),
     * as {@link GpuLabels} declares them.
     */
    static void perGpu(Out out, String model, GpuFacts.Gpu g) {
        if (g.memoryBytes() != null && g.memoryBytes() / GpuFacts.MIB > 0) {
            put(out, model, "gpu.memory", g.memoryBytes() / GpuFacts.MIB, "nvmlDeviceGetMemoryInfo total = " + g.memoryBytes()
                    + " bytes (GPU " + g.index() + "), in MiB");
        }
        if (g.ccMajor() != null && g.ccMinor() != null && g.ccMajor() != 0) {
            String cc = "nvmlDeviceGetCudaComputeCapability = " + g.ccMajor() + "." + g.ccMinor() + " (GPU " + g.index() + ")";
            put(out, model, "gpu.family", Names.family(g.ccMajor(), g.ccMinor()), cc);
            put(out, model, "gpu.compute.major", g.ccMajor(), cc);
            put(out, model, "gpu.compute.minor", g.ccMinor(), cc);
        }
    }

    /** {@code key} for {@code model} null, else its per-model twin; nothing when it has none. */
    static void put(Out out, String model, String key, Object value, String evidence) {
        String twin = model == null ? key : GpuLabels.twinKey(key, model);
        if (twin != null) {
            out.put(twin, value, evidence);
        }
    }
}
