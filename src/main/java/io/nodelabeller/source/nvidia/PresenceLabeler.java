package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.NvidiaPci;
import io.nodelabeller.label.Evidence;

import java.util.List;

/**
 * {@code gpu.present} from the PCI scan alone (vendor 10de, class 0300 or 0302), with or without NVML, so that
 * GPU components can be gated on it from the first cycle.
 */
final class PresenceLabeler extends GpuLabeler {

    @Override
    void label(GpuFacts facts, Out out) {
        long n = facts.pciClasses().stream().filter(NvidiaPci::isGpuClass).count();
        if (n > 0) {
            out.put("gpu.present", "true", java.util.Set.of("pci"), "pci.device vendor 10de with class 0300/0302: " + n + " device"
                    + (n == 1 ? "" : "s") + Evidence.from(facts.features(), GpuFacts.PCI));
        }
    }
}
