package io.nodelabeller.source.nvidia;


import java.util.List;

/** {@code mig.capable}: true when {@code nvmlDeviceGetMigMode} succeeds on some GPU. */
final class MigCapabilityLabeler extends GpuLabeler {

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
