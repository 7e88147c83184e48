package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.source.pci.PciSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * GPU Feature Discovery's labels for GPUs that something other than NVML describes — the NVIDIA DRA driver's
 * ResourceSlices: the caller renders that description into this source's own feature vocabulary
 * ({@link NvidiaFeatures}: {@code nvidia.nvml}, {@code nvidia.gpu}, {@code nvidia.mig}), and the same GPU labelers as
 * NVML's make the labels, so that a value has one formula whichever way its facts came. Left out, because a
 * description like a slice cannot give them right: the driver version's revision and full string (the DRA driver
 * writes versions as semantic versions, {@code 580.159.04} as {@code 580.159.4}), what only a device plugin's
 * configuration means (replicas, sharing strategy, the MIG strategy: MIG devices are labelled as the {@code mixed}
 * strategy does), and every label the labelers not run here make ({@code gfd.timestamp}, {@code gpu.machine},
 * {@code mig.capable}, {@code mps.capable}, {@code gpu.clique}, {@code vgpu.*}).
 */
public final class DescribedGpuLabels {

    /** Label names (after {@code nvidia.com/}) a description cannot give; see the class comment. */
    public static final Set<String> LEFT_OUT = Set.of("cuda.driver.rev", "cuda.driver-version.revision",
            "cuda.driver-version.full", "mig.strategy",
            // the single strategy's description of a MIG device under gpu.*: MIG devices are labelled as mixed labels them
            "gpu.multiprocessors", "gpu.slices.gi", "gpu.slices.ci", "gpu.engines.copy", "gpu.engines.decoder",
            "gpu.engines.encoder", "gpu.engines.jpeg", "gpu.engines.ofa");

    /** Name suffixes of the left-out labels a device plugin's configuration decides, whatever the resource. */
    public static final List<String> LEFT_OUT_SUFFIXES = List.of("replicas", "sharing-strategy");

    private static final DevicePluginConfig MIXED = DevicePluginConfig.DEFAULT.withFlags("mixed", null, "MIG devices described");

    private final List<GpuLabeler> labelers = List.of(new VersionLabeler(), new ResourceLabeler(MIXED),
            new ModelLabeler(MIXED), new ModeLabeler());

    /**
     * The labels a description gives, as the GPU labels document them, each said to come from {@code source}'s
     * {@code what} ("dra.gpu, dra.mig").
     */
    public List<io.nodelabeller.label.LabelDoc> docs(String source, String what) {
        List<io.nodelabeller.label.LabelDoc> out = new ArrayList<>();
        labelers.forEach(l -> l.docs().stream().filter(d -> described(d.key()))
                .forEach(d -> out.add(new io.nodelabeller.label.LabelDoc(d.key(), source, what + " (as " + d.from() + ")",
                        d.example(), d.description()))));
        return out;
    }

    /** Whether the described labels include {@code key} ({@code nvidia.com/...}) when their facts are there. */
    public static boolean described(String key) {
        String name = key.startsWith(Out.PREFIX) ? key.substring(Out.PREFIX.length()) : key;
        return !LEFT_OUT.contains(name) && LEFT_OUT_SUFFIXES.stream().noneMatch(s -> name.endsWith("." + s));
    }

    /**
     * The labels of the GPUs {@code described} holds (this source's vocabulary, with the {@code pci.device} features
     * for {@code gpu.mode}), each made by {@code source} from it: {@code source} replaces this source among each label's
     * inputs, and {@code where} opens its evidence. None when no usable GPU is described.
     */
    public List<Label> labels(Features described, String source, String where) {
        GpuFacts facts = GpuFacts.of(described);
        if (!facts.nvmlUsable()) {
            return List.of();
        }
        List<Label> out = new ArrayList<>();
        for (Label l : Labeler.merge(labelers, described)) {
            if (!described(l.key())) {
                continue;
            }
            Set<String> inputs = new HashSet<>(l.inputs());
            inputs.remove(NvidiaSource.NAME);
            inputs.add(source);
            inputs.retainAll(Set.of(source, PciSource.NAME));
            out.add(new Label(l.key(), l.value(), source, where + " (as GPU Feature Discovery from NVML: " + l.evidence() + ")",
                    inputs));
        }
        return out;
    }
}
