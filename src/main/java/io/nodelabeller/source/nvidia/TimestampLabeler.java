package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.LabelDoc;

import java.time.Instant;
import java.util.List;

/** {@code gfd.timestamp}: unix seconds of the process start, fixed for the life of the process (as GFD per run). */
final class TimestampLabeler extends GpuLabeler {

    private final Instant start;

    TimestampLabeler(Instant start) {
        this.start = start;
    }

    @Override
    public List<LabelDoc> docs() {
        return List.of(LabelDoc.key(Out.PREFIX + "gfd.timestamp").source("nvidia, pci")
                .from("process start time").example("1763804014")
                .means("Unix seconds of the agent's start, on nodes with an NVIDIA GPU; left out with --no-timestamp or "
                        + "flags.gfd.noTimestamp."));
    }

    @Override
    void label(GpuFacts facts, Out out) {
        // present when the PCI scan or NVML shows a GPU: it depends on both
        out.put("gfd.timestamp", start.getEpochSecond(), Out.NVML_AND_PCI, "process start " + start);
    }
}
