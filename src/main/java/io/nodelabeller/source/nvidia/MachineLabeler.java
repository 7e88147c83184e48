package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.LabelDoc;

import java.util.List;

/** {@code gpu.machine}: the sanitised DMI product name, {@code unknown} when it could not be read. */
final class MachineLabeler extends GpuLabeler {

    @Override
    public List<LabelDoc> docs() {
        return List.of(Out.doc("gpu.machine", "/sys/class/dmi/id/product_name (else /sys/devices/virtual/dmi/id/product_name)",
                "DGXA100-920-23687-2530-000", "The machine's DMI product name, sanitised; unknown when unreadable."));
    }

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
