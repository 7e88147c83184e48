package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.label.LabelDoc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Beyond GFD: every GPU model of the node, not only one. GFD's {@code gpu.*} labels describe a single model (with
 * several, the one with the most GPUs); these say, for each model, how many GPUs of it the node has and what they
 * are: {@code gpu.model.<model>.count}, {@code .memory}, {@code .family}, {@code .compute.major}, {@code .compute.minor},
 * {@code .replicas}, and {@code gpu.models}, the number of models. They are on every node where NVML answers, one
 * model or several, so that one node affinity term selects a model wherever it is.
 *
 * <p>Keys name the model, not a device plugin resource: the device plugin advertises every full GPU as
 * {@code nvidia.com/gpu} whatever its model (it ignores {@code resources.gpus} patterns:
 * {@code DisableResourceNamingInConfig}, k8s-device-plugin api/config/v1/config.go), so a key per resource name
 * would describe resources that do not exist. {@code .replicas} is what {@code nvidia.com/gpu} gives per GPU of the
 * model: the sharing replicas, 0 when all its GPUs have MIG enabled (their MIG devices are the resources then, with
 * GFD's {@code mig-<profile>.*} labels).
 */
final class ModelLabeler extends GpuLabeler {

    private final DevicePluginConfig dp;

    ModelLabeler(DevicePluginConfig dp) {
        this.dp = dp;
    }

    @Override
    public List<LabelDoc> docs() {
        String model = Out.PREFIX + Names.MODEL_PREFIX + "<model>.";
        String example = Out.PREFIX + Names.MODEL_PREFIX + "Tesla-V100-SXM2-32GB.";
        String cc = "nvmlDeviceGetCudaComputeCapability";
        String key = " <model> is the GPU name sanitised as in gpu.product; a name longer than " + Names.MODEL_KEY_MAX
                + " characters is cut and ends with 8 hex digits of its SHA-256.";
        return List.of(
                Out.doc("gpu.models", "nvmlDeviceGetName", 2, "How many GPU models the node has (1 on most nodes)."),
                pattern(model + "count", "nvmlDeviceGetCount_v2, nvmlDeviceGetName", example + "count", "4",
                        "GPUs of this model on the node, MIG-enabled ones included." + key),
                pattern(model + "memory", "nvmlDeviceGetMemoryInfo", example + "memory", "32768",
                        "Memory of one GPU of this model, MiB."),
                pattern(model + "family", cc, example + "family", "volta", "Architecture of this model."),
                pattern(model + "compute.major", cc, example + "compute.major", "7", "CUDA compute capability, major."),
                pattern(model + "compute.minor", cc, example + "compute.minor", "0", "CUDA compute capability, minor."),
                pattern(model + "replicas", "device plugin config sharing.*.resources (nvidia.com/gpu)", example + "replicas",
                        "1", "What nvidia.com/gpu gives per GPU of this model: 1 unless shared, 0 when all its GPUs "
                                + "have MIG enabled."));
    }

    private static LabelDoc pattern(String key, String from, String exampleKey, String value, String meaning) {
        return LabelDoc.key(key).source(Out.SOURCE).from(from).example(exampleKey, value).means(meaning);
    }

    @Override
    void label(GpuFacts facts, Out out) {
        Map<String, List<GpuFacts.Gpu>> byModel = new TreeMap<>();
        for (GpuFacts.Gpu g : facts.gpus()) {
            String model = Names.modelKey(g.name());
            if (model.isEmpty()) {
                out.note("GPU " + g.index() + ": its name '" + g.name() + "' has no character a label key can hold; "
                        + "no nvidia.com/gpu.model.* label for it");
            } else {
                byModel.computeIfAbsent(model, k -> new ArrayList<>()).add(g);
            }
        }
        List<String> names = new ArrayList<>();
        byModel.values().forEach(gpus -> names.add("'" + gpus.get(0).name() + "' (" + Names.gpus(ResourceLabeler.indices(gpus)) + ")"));
        out.put("gpu.models", byModel.size(), "nvmlDeviceGetName: " + String.join(", ", names));
        byModel.forEach((model, gpus) -> label(Names.MODEL_PREFIX + model + ".", gpus, out));
    }

    private void label(String prefix, List<GpuFacts.Gpu> gpus, Out out) {
        GpuFacts.Gpu g = gpus.get(0);
        String where = Names.gpus(ResourceLabeler.indices(gpus));
        out.put(prefix + "count", gpus.size(), "nvmlDeviceGetName = '" + g.name() + "' (" + where + ")");
        ResourceLabeler.memoryAndCompute(out, prefix, g);
        Share share = gpus.stream().allMatch(GpuFacts.Gpu::migEnabled) ? Share.migParent(where) : Share.of(dp, "nvidia.com/gpu");
        out.put(prefix + "replicas", share.replicas(), share.evidence());
    }
}
