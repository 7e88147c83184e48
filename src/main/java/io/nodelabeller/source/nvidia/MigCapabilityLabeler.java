package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.LabelDoc;

import java.util.List;

/** {@code mig.capable}: true when {@code nvmlDeviceGetMigMode} succeeds on some GPU. */
final class MigCapabilityLabeler extends GpuLabeler {

    @Override
    public List<LabelDoc> docs() {
        return List.of(Out.doc("mig.capable", "nvmlDeviceGetMigMode", "true", "Whether some GPU supports MIG."));
    }

    @Override
    void label(GpuFacts facts, Out out) {
        List<Integer> capable = facts.gpus().stream().filter(GpuFacts.Gpu::migCapable).map(GpuFacts.Gpu::index).toList();
        if (capable.isEmpty()) {
            out.put("mig.capable", "false", "nvmlDeviceGetMigMode not supported on "
                    + Names.gpus(facts.gpus().stream().map(GpuFacts.Gpu::index).toList()));
        } else {
            out.put("mig.capable", "true", "nvmlDeviceGetMigMode succeeded on " + Names.gpus(capable));
        }
    }
}
