package io.nodelabeller.source.nvidia;


import java.time.Instant;
import java.util.List;

/** {@code gfd.timestamp}: unix seconds of the process start, fixed for the life of the process (as GFD per run). */
final class TimestampLabeler extends GpuLabeler {

    private final Instant start;

    TimestampLabeler(Instant start) {
        this.start = start;
    }

    @Override
    void label(GpuFacts facts, Out out) {
        // present when the PCI scan or NVML shows a GPU: it depends on both
        out.put("gfd.timestamp", start.getEpochSecond(), Out.NVML_AND_PCI, "process start " + start);
    }
}
