package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.LabelDoc;

import java.util.List;

/** One small GPU labeler (GFD's lm.Labeler): adds its labels and notes for one cycle's facts. */
interface Part {
    void label(GpuFacts facts, Out out);

    /** Every label {@link #label} can put, for docs/labels.md. */
    List<LabelDoc> docs();
}
