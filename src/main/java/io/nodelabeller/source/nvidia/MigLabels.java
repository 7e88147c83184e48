package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The labels of the {@code single} and {@code mixed} MIG strategies (GFD's mig-strategy.go). Only MIG devices of
 * MIG-enabled GPUs count.
 */
final class MigLabels {


    /** A label of a MIG device's attributes: label suffix, nvmlDeviceGetAttributes_v2 field, example (A100 1g.10gb). */
    record Attr(String label, String field, String example, String meaning) {
    }

    static final List<Attr> ATTRIBUTES = List.of(
            new Attr("multiprocessors", "multiprocessorCount", "14", "streaming multiprocessors"),
            new Attr("slices.gi", "gpuInstanceSliceCount", "1", "GPU-instance slices"),
            new Attr("slices.ci", "computeInstanceSliceCount", "1", "compute-instance slices"),
            new Attr("engines.copy", "sharedCopyEngineCount", "1", "copy engines"),
            new Attr("engines.decoder", "sharedDecoderCount", "0", "video decoders"),
            new Attr("engines.encoder", "sharedEncoderCount", "0", "video encoders"),
            new Attr("engines.jpeg", "sharedJpegCount", "0", "JPEG decoders"),
            new Attr("engines.ofa", "sharedOfaCount", "0", "optical flow accelerators"));

    private MigLabels() {
    }

    /**
     * {@code single}: every GPU has MIG enabled with MIG devices of one profile, advertised as {@code nvidia.com/gpu};
     * the {@code gpu.*} labels then describe a MIG device. Anything else is INVALID: GFD's fixed label set.
     */
    static void single(GpuFacts facts, DevicePluginConfig dp, Out out) {
        out.put("mig.strategy", "single", "MIG strategy single: " + dp.migStrategyWhere());
        List<GpuFacts.Gpu> enabled = facts.gpus().stream().filter(GpuFacts.Gpu::migEnabled).toList();
        if (enabled.isEmpty()) {
            return;
        }
        List<GpuFacts.Gpu> disabled = facts.gpus().stream().filter(g -> !g.migEnabled()).toList();
        List<GpuFacts.Gpu> empty = enabled.stream().filter(g -> g.migs().isEmpty()).toList();
        List<GpuFacts.Mig> migs = migs(facts);
        Set<String> profiles = new LinkedHashSet<>();
        migs.forEach(m -> profiles.add(Names.profile(m.profile())));
        String reason = null;
        if (!empty.isEmpty()) {
            reason = "MIG enabled but no MIG devices on " + Names.gpus(ResourceLabeler.indices(empty));
        } else if (!disabled.isEmpty()) {
            reason = "MIG enabled on " + Names.gpus(ResourceLabeler.indices(enabled)) + " but disabled on "
                    + Names.gpus(ResourceLabeler.indices(disabled));
        } else if (profiles.size() > 1) {
            reason = "more than one MIG profile on the node: " + String.join(", ", profiles);
        }
        if (reason != null) {
            out.note("invalid configuration for mig-strategy=single: " + reason);
            String ev = "mig-strategy single is invalid: " + reason;
            out.put("gpu.product", Names.product(enabled.get(0).name(), "MIG", "INVALID"), ev);
            out.put("gpu.count", 0, ev);
            out.put("gpu.replicas", 0, ev);
            out.put("gpu.sharing-strategy", "", ev);
            out.put("gpu.memory", 0, ev);
            return;
        }
        device(facts, out, "gpu.", migs, Share.of(dp, "nvidia.com/gpu"));
    }

    /** {@code mixed}: 13 {@code mig-<profile>.*} labels per MIG profile, the full-GPU labels left as they are. */
    static void mixed(GpuFacts facts, DevicePluginConfig dp, Out out) {
        out.put("mig.strategy", "mixed", "MIG strategy mixed: " + dp.migStrategyWhere());
        Map<String, List<GpuFacts.Mig>> byProfile = new LinkedHashMap<>();
        migs(facts).forEach(m -> byProfile.computeIfAbsent(Names.profile(m.profile()), k -> new ArrayList<>()).add(m));
        byProfile.forEach((profile, list) ->
                device(facts, out, "mig-" + profile + ".", list, Share.of(dp, "nvidia.com/mig-" + profile)));
    }

    private static List<GpuFacts.Mig> migs(GpuFacts facts) {
        List<GpuFacts.Mig> out = new ArrayList<>();
        facts.gpus().stream().filter(GpuFacts.Gpu::migEnabled).forEach(g -> out.addAll(g.migs()));
        return out;
    }

    /** The labels of one MIG resource: {@code <prefix>count}, replicas, sharing-strategy, product, memory, attributes. */
    private static void device(GpuFacts facts, Out out, String prefix, List<GpuFacts.Mig> migs, Share share) {
        GpuFacts.Mig first = migs.get(0);
        GpuFacts.Gpu parent = facts.gpus().stream().filter(g -> g.index() == first.parent()).findFirst().orElseThrow();
        String profile = Names.profile(first.profile());
        List<Integer> parents = migs.stream().map(GpuFacts.Mig::parent).distinct().toList();
        String where = "MIG " + first.parent() + ":" + first.index() + ", profile " + first.profile();
        out.put(prefix + "count", migs.size(), migs.size() + " MIG devices of profile " + first.profile() + " on "
                + Names.gpus(parents) + " (nvmlDeviceGetMigDeviceHandleByIndex)");
        out.put(prefix + "replicas", share.replicas(), share.evidence());
        out.put(prefix + "sharing-strategy", share.strategy(), share.evidence());
        out.put(prefix + "product", Names.product(parent.name(), "MIG", profile, share.sharedSuffix() ? "SHARED" : ""),
                "nvmlDeviceGetName = '" + parent.name() + "' (GPU " + parent.index() + "), " + where
                        + (share.sharedSuffix() ? "; -SHARED: " + share.evidence() : ""));
        Long mb = first.attrs().get("memorySizeMB");
        if (mb != null) {
            out.put(prefix + "memory", mb, "nvmlDeviceGetAttributes_v2 memorySizeMB = " + mb + " (" + where + ")");
        } else if (first.memoryBytes() != null) {
            out.put(prefix + "memory", first.memoryBytes() / GpuFacts.MIB, "nvmlDeviceGetMemoryInfo total = " + first.memoryBytes()
                    + " bytes (" + where + "), in MiB");
        }
        for (Attr a : ATTRIBUTES) {
            Long v = first.attrs().get(a.field());
            if (v != null) {
                out.put(prefix + a.label(), v, "nvmlDeviceGetAttributes_v2 " + a.field() + " = " + v + " (" + where + ")");
            }
        }
    }
}
