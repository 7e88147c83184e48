package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.label.Evidence;

import java.util.List;

/**
 * GFD's vGPU labels (k8s-device-plugin {@code internal/lm/vgpu.go}), from the {@code nvidia.vgpu} instances, with or
 * without NVML: {@code vgpu.present=true} when there is a vGPU, {@code false} on a GPU node where the scan found none, and the
 * host's vGPU manager driver version and branch, the last vGPU's in address order when there are several. The GPU
 * Operator reads {@code vgpu.host-driver-version} to keep vGPU guests out of its MIG management.
 */
final class VgpuLabeler extends GpuLabeler {

    static final String FROM = NvidiaSource.PCI_DEVICES + NvidiaSource.VGPU_ORIGIN_TAIL + " (sources.nvidia.vgpu)";

    @Override
    void label(GpuFacts facts, Out out) {
        Features f = facts.features();
        String key = NvidiaSource.NAME + "." + NvidiaFeatures.VGPU;
        if (!f.allInstances().containsKey(key)) {
            return; // not looked for, or the scan failed: no vGPU label, as GFD
        }
        List<Instance> vgpus = f.instances(key);
        String where = Evidence.from(f, key);
        if (vgpus.isEmpty()) {
            // GFD writes false wherever its scan works; here only on GPU nodes, which alone carry nvidia.com labels
            if (facts.pciGpuPresent() || facts.nvmlUsable()) {
                out.put("vgpu.present", "false", Out.NVML_AND_PCI, "no NVIDIA device with a vGPU capability" + where);
            }
            return;
        }
        NvidiaFeatures.Vgpu last = NvidiaFeatures.Vgpu.from(vgpus.get(vgpus.size() - 1));
        out.put("vgpu.present", "true", vgpus.size() + " vGPU(s): " + String.join(", ",
                vgpus.stream().map(i -> i.get("address")).toList()) + where);
        out.put("vgpu.host-driver-version", last.hostDriverVersion(), "host driver record of " + last.address() + where);
        out.put("vgpu.host-driver-branch", last.hostDriverBranch(), "host driver record of " + last.address() + where);
    }
}
