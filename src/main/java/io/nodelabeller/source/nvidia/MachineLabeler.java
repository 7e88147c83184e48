package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.Evidence;

import java.util.List;

/** {@code gpu.machine}: the sanitised DMI product name, {@code unknown} when it could not be read. */
final class MachineLabeler extends GpuLabeler {

    @Override
    void label(GpuFacts facts, Out out) {
        String raw = facts.machine();
        if (raw == null) {
            out.put("gpu.machine", "unknown", "nvidia.machine.product_name not readable");
        } else {
            out.put("gpu.machine", Names.sanitise(raw.trim()), "nvidia.machine.product_name = '" + raw + "'"
                    + Evidence.from(facts.features(), GpuFacts.MACHINE));
        }
    }
}
