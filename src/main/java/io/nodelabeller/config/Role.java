package io.nodelabeller.config;

import java.util.Locale;

/**
 * Which of its install's labels an agent writes. One agent per node writes them all ({@link #ALL}: {@code print} on a
 * laptop, an agent that can reach NVML and the host). Where NVML needs the nvidia container runtime, an install runs
 * two agents on a GPU node, as NFD's worker and GPU Feature Discovery share one today, so that no host label depends
 * on the GPU stack working: {@link #HOST} on every node, {@link #GPU} on the nvidia runtime where
 * {@code nvidia.com/gpu.present=true}. They share the install (its write scope and tracking annotations) and each
 * keeps to its part of the keys; docs/gpu.md, "Two agents on a GPU node".
 */
public enum Role {
    /** Every label: the sources and labelers the config chooses. */
    ALL,
    /**
     * Every label but the GPU agent's: NVML is never loaded (the nvidia source is not run), and of the GPU labels only
     * {@code nvidia.com/gpu.present}, from the PCI scan, is written — but where no GPU agent runs (a node in the GPU
     * Operator's DRA model, an install without a GPU agent), where GPU Feature Discovery's labels come from the NVIDIA
     * DRA driver's ResourceSlices (the dra source).
     */
    HOST,
    /**
     * Only GPU Feature Discovery's labels but {@code gpu.present}: the pci and nvidia sources, the nvidia labeler; no
     * rules, no feature files, no NodeFeatureRule objects.
     */
    GPU;

    /** The values {@code --role} accepts. */
    public static final String VALUES = "all, host, gpu";

    /** {@code all}, {@code host} or {@code gpu} (any case); null when it is none of them. */
    public static Role parse(String value) {
        if (value == null) {
            return null;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "all" -> ALL;
            case "host" -> HOST;
            case "gpu" -> GPU;
            default -> null;
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
