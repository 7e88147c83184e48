package io.nodelabeller.testing;

import io.nodelabeller.label.Label;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a labeler's tests compare: its labels as a sorted key → value map, or as NFD flag names. */
public final class Labels {

    /** NFD's label namespace, which every feature label's key starts with. */
    public static final String NFD = "feature.node.kubernetes.io/";

    private Labels() {
    }

    /** The labels as key → value, sorted by key. */
    public static Map<String, String> map(List<Label> labels) {
        Map<String, String> out = new TreeMap<>();
        labels.forEach(l -> out.put(l.key(), l.value()));
        return out;
    }

    /** The keys of flag labels (each must be {@code true}) without {@link #NFD}, sorted. */
    public static List<String> flags(List<Label> labels) {
        assertTrue(labels.stream().allMatch(l -> l.value().equals("true")), labels.toString());
        return labels.stream().map(l -> l.key().substring(NFD.length())).sorted().toList();
    }
}
