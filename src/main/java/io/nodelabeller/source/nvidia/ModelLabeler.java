package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;

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
        byModel.forEach((model, gpus) -> label(model, gpus, out));
    }

    /** The twins of {@code model}'s GPUs: count and replicas of the model, the per-GPU values of its first GPU. */
    private void label(String model, List<GpuFacts.Gpu> gpus, Out out) {
        GpuFacts.Gpu g = gpus.get(0);
        String where = Names.gpus(ResourceLabeler.indices(gpus));
        ResourceLabeler.put(out, model, "gpu.count", gpus.size(), "nvmlDeviceGetName = '" + g.name() + "' (" + where + ")");
        ResourceLabeler.perGpu(out, model, g);
        Share share = gpus.stream().allMatch(GpuFacts.Gpu::migEnabled) ? Share.migParent(where) : Share.of(dp, "nvidia.com/gpu");
        ResourceLabeler.put(out, model, "gpu.replicas", share.replicas(), share.evidence());
    }
}
