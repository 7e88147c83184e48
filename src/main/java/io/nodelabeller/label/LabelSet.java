package io.nodelabeller.label;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The validated labels of one cycle, sorted by key, plus what was dropped and why. Only valid labels are
 * in {@link #labels()}: every one of them may be sent to the API server.
 */
public record LabelSet(SortedMap<String, Label> labels, List<Dropped> dropped) {

    /** A label that failed validation or the whitelist, never sent. */
    public record Dropped(Label label, String reason) {
    }

    public LabelSet {
        labels = Collections.unmodifiableSortedMap(new TreeMap<>(labels));
        dropped = List.copyOf(dropped);
    }

    /** key → value, sorted by key. */
    public SortedMap<String, String> asMap() {
        SortedMap<String, String> out = new TreeMap<>();
        labels.forEach((k, l) -> out.put(k, l.value()));
        return Collections.unmodifiableSortedMap(out);
    }

    public int size() {
        return labels.size();
    }
}
