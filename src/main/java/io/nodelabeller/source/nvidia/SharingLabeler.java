package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;

import java.util.List;

/**
 * {@code mps.capable}: true when the device plugin shares GPUs with MPS and no GPU has MIG enabled. MPS on a
 * MIG-enabled GPU is a configuration error: GFD stops; here the label is omitted and the cause logged.
 */
final class SharingLabeler extends GpuLabeler {

    private final DevicePluginConfig dp;

    SharingLabeler(DevicePluginConfig dp) {
        this.dp = dp;
    }

    @Override
    void label(GpuFacts facts, Out out) {
        String strategy = dp.sharing().strategy();
        if (!strategy.equals("mps")) {
            out.put("mps.capable", "false", "sharing strategy " + strategy + (dp.given() ? " in " + dp.origin() : ""));
            return;
        }
        List<Integer> mig = facts.gpus().stream().filter(GpuFacts.Gpu::migEnabled).map(GpuFacts.Gpu::index).toList();
        if (!mig.isEmpty()) {
            out.note("MPS sharing is not supported on MIG-enabled GPUs: sharing.mps in " + dp.origin() + ", MIG enabled on "
                    + Names.gpus(mig) + "; nvidia.com/mps.capable is omitted");
            return;
        }
        out.put("mps.capable", "true", "sharing.mps replicates a resource in " + dp.origin() + "; no GPU has MIG enabled");
    }
}
