package io.nodelabeller.label.gpu;

import java.time.Instant;

/** {@code gfd.timestamp}: unix seconds of the process start, fixed for the life of the process (as GFD per run). */
final class TimestampLabeler implements Part {

    private final Instant start;

    TimestampLabeler(Instant start) {
        this.start = start;
    }

    @Override
    public void label(GpuFacts facts, Out out) {
        out.put("gfd.timestamp", start.getEpochSecond(), "process start " + start);
    }
}
