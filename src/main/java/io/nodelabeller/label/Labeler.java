package io.nodelabeller.label;

import io.nodelabeller.feature.Features;

import java.util.List;

/**
 * Turns features into labels. Small and composable (GFD's {@code lm.Labeler}): the final label set is the
 * merge of every labeler's output, later labelers winning on equal keys.
 */
public interface Labeler {

    /** The labeler's name, as used in {@code core.labelSources}. */
    String name();

    List<Label> labels(Features features);

    /**
     * Every kind of label this labeler can produce (docs/labels.md is generated from these). A labeler whose
     * labels are not all described here fails {@code LabelDocsCoverageTest} on the fake hosts.
     */
    default List<LabelDoc> docs() {
        return List.of();
    }
}
