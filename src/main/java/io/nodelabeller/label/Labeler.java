package io.nodelabeller.label;

import io.nodelabeller.feature.Features;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns features into labels. Small and composable (GFD's {@code lm.Labeler}): the final label set is the
 * merge of every labeler's output, later labelers winning on equal keys. A labeler has no name of its own: the
 * catalog lists it under its source's name, and its labels carry that name as their {@link Label#source()}.
 */
public interface Labeler {

    List<Label> labels(Features features);

    /**
     * Everything one run of a labeler produced: its labels and, for rule labelers, the other outputs by kind (node
     * annotations, taints keyed {@code key:effect}, extended resources), and the inputs it could not read this time
     * ({@link LabelSet#uncertain()}).
     */
    record Produced(List<Label> labels, Map<LabelSet.Kind, List<Label>> others, Set<String> uncertain) {
        public Produced {
            labels = List.copyOf(labels);
            others = Map.copyOf(others);
            uncertain = Set.copyOf(uncertain);
        }
    }

    /** What the labelling stage calls: {@link #labels(Features)} for labelers that produce labels only. */
    default Produced produce(Features features) {
        return new Produced(labels(features), Map.of(), Set.of());
    }

    /**
     * Every kind of label this labeler can produce (docs/labels.md is generated from these). A labeler whose
     * labels are not all described here fails {@code LabelDocsCoverageTest} on the fake hosts.
     */
    default List<LabelDoc> docs() {
        return List.of();
    }

    /**
     * Labelers composed into one (GFD's {@code lm.Merge}): each runs in order, and a later one's label replaces an
     * earlier one's of the same key. The labelling stage composes the catalog's labelers the same way.
     */
    static List<Label> merge(List<? extends Labeler> labelers, Features features) {
        Map<String, Label> out = new LinkedHashMap<>();
        for (Labeler labeler : labelers) {
            for (Label label : labeler.labels(features)) {
                out.put(label.key(), label);
            }
        }
        return List.copyOf(out.values());
    }
}
