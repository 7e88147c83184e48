package io.nodelabeller.label.gpu;

/** One small GPU labeler (GFD's lm.Labeler): adds its labels and notes for one cycle's facts. */
interface Part {
    void label(GpuFacts facts, Out out);
}
