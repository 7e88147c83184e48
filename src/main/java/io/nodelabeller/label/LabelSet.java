package io.nodelabeller.label;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The validated outputs of one cycle, each kind sorted by key, plus what was dropped and why. Only valid outputs are
 * kept: every one of them may be sent to the API server. Labels come from every labeler; node annotations, taints
 * and extended resources only from rules (NFD's NodeFeatureRule outputs).
 *
 * @param others    the outputs of each other kind that labelling produced this cycle (possibly none); a kind that is
 *                  not a key was not produced at all (switched off), and publishing leaves it as it is
 * @param uncertain inputs this cycle could not read (the NodeFeatureRule objects, before they are known): outputs
 *                  that may depend on them are kept as they were, like those of a failed source
 */
public record LabelSet(SortedMap<String, Label> labels, List<Dropped> dropped, Map<Kind, SortedMap<String, Label>> others,
                       Set<String> uncertain) {

    /**
     * What an output becomes on the node. A taint is keyed {@code key:effect} (a node has at most one taint per key
     * and effect) and its value is the taint's value.
     */
    public enum Kind {
        LABEL("label"), ANNOTATION("annotation"), TAINT("taint"), EXTENDED_RESOURCE("extended resource");

        private final String text;

        Kind(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** An output that failed validation or the whitelist, never sent. */
    public record Dropped(Label label, String reason) {
    }

    public LabelSet {
        labels = Collections.unmodifiableSortedMap(new TreeMap<>(labels));
        dropped = List.copyOf(dropped);
        Map<Kind, SortedMap<String, Label>> copy = new EnumMap<>(Kind.class);
        others.forEach((k, m) -> {
            if (k != Kind.LABEL) {
                copy.put(k, Collections.unmodifiableSortedMap(new TreeMap<>(m)));
            }
        });
        others = Collections.unmodifiableMap(copy);
        uncertain = Set.copyOf(uncertain);
    }

    /** Labels only. */
    public LabelSet(SortedMap<String, Label> labels, List<Dropped> dropped) {
        this(labels, dropped, Map.of(), Set.of());
    }

    /** Whether labelling produced outputs of {@code kind} this cycle (labels always; the others when switched on). */
    public boolean produces(Kind kind) {
        return kind == Kind.LABEL || others.containsKey(kind);
    }

    /** The outputs of one kind, sorted by key. */
    public SortedMap<String, Label> of(Kind kind) {
        if (kind == Kind.LABEL) {
            return labels;
        }
        return others.getOrDefault(kind, Collections.emptySortedMap());
    }

    /** This set with the outputs of {@code kind} replaced. */
    public LabelSet with(Kind kind, SortedMap<String, Label> outputs) {
        if (kind == Kind.LABEL) {
            return new LabelSet(outputs, dropped, others, uncertain);
        }
        Map<Kind, SortedMap<String, Label>> copy = new EnumMap<>(Kind.class);
        copy.putAll(others);
        copy.put(kind, outputs);
        return new LabelSet(labels, dropped, copy, uncertain);
    }

    /** key → value, sorted by key. */
    public SortedMap<String, String> asMap() {
        return asMap(Kind.LABEL);
    }

    /** key → value of one kind, sorted by key. */
    public SortedMap<String, String> asMap(Kind kind) {
        SortedMap<String, String> out = new TreeMap<>();
        of(kind).forEach((k, l) -> out.put(k, l.value()));
        return Collections.unmodifiableSortedMap(out);
    }

    public int size() {
        return labels.size();
    }

    /** The key of a taint among {@link Kind#TAINT} outputs: {@code key:effect}. */
    public static String taintKey(String key, String effect) {
        return key + ":" + effect;
    }
}
