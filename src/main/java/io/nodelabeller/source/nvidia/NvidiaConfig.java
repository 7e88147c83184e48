package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.yaml.YamlNode;

/**
 * {@code sources.nvidia:} node-labeller's own (NFD has no nvidia source). {@code vgpu}: look for vGPUs in the PCI
 * configuration space of the NVIDIA devices, as GFD does, for {@code nvidia.com/vgpu.*}. Off by default: the kernel
 * shows all of a device's configuration space only to a process with CAP_SYS_ADMIN (anyone else reads its first 64
 * bytes), so it needs a privileged agent (docs/gpu.md, "vGPU").
 */
public record NvidiaConfig(boolean vgpu) {

    public static final NvidiaConfig DEFAULT = new NvidiaConfig(false);

    /** {@code sources.nvidia}, for the config loader. */
    public static final SourceSection<NvidiaConfig> SECTION = new SourceSection<>("nvidia", DEFAULT, NvidiaConfig::read);

    static NvidiaConfig read(YamlNode n) {
        n.object("vgpu");
        return new NvidiaConfig(n.child("vgpu").bool(false));
    }
}
