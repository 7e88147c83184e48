package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.List;

/**
 * One small GPU labeler (GFD's {@code lm.Labeler}), a {@link Labeler} like any other: {@link NvidiaLabeler} composes
 * them with {@link Labeler#merge}. Each reads the cycle's {@link GpuFacts} (parsed once per snapshot) and writes its
 * labels and notes (problems worth a log line) into an {@link Out}; the notes of the last call are kept for the
 * composing labeler to log once per change.
 */
abstract class GpuLabeler implements Labeler {

    private List<String> notes = List.of();

    /** Puts this labeler's labels for {@code facts} into {@code out}. */
    abstract void label(GpuFacts facts, Out out);

    @Override
    public final List<Label> labels(Features features) {
        Out out = new Out();
        label(GpuFacts.of(features), out);
        notes = out.notes();
        return out.labels();
    }

    /** This labeler's labels, as {@link GpuLabels} declares them. */
    @Override
    public List<LabelDoc> docs() {
        return GpuLabels.docs(getClass());
    }

    /** The problems the last {@link #labels} call noted. */
    final List<String> notes() {
        return notes;
    }
}
