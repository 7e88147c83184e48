package io.nodelabeller.daemon;

import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * "Never remove a label on uncertainty": decides, cycle by cycle, which labels of the previous cycle are kept
 * although this cycle's labelling no longer produced them, or produced them with another value. Immutable;
 * {@link #next} returns the state for the following cycle with the labels to publish.
 *
 * <p>A label depends on the sources it was computed from ({@link Label#inputs()}: a built-in labeler's labels on its
 * own source, {@code nvidia.com/gpu.mode} on the nvidia and pci sources, a custom rule's on any source). When one of
 * them failed this cycle the label is uncertain: its last value is kept — whether this cycle left it out or gave it
 * another value — for up to {@code staleAfter} consecutive uncertain cycles, and dropped (or replaced) on the next.
 * When every input succeeded (or was switched off), this cycle's labels are taken as they are.
 */
public final class Retention {

    /** A label carried over from an earlier cycle: {@code misses} consecutive uncertain cycles without it. */
    record Kept(Label label, int misses) {
    }

    /** The labels to publish this cycle, the state for the next one, and which labels were only kept. */
    public record Step(Retention next, LabelSet labels, SortedMap<String, Label> kept) {
    }

    private final int staleAfter;
    private final SortedMap<String, Kept> previous;

    private Retention(int staleAfter, SortedMap<String, Kept> previous) {
        this.staleAfter = staleAfter;
        this.previous = previous;
    }

    /** The state before the first cycle: nothing known. */
    public static Retention initial(int staleAfter) {
        if (staleAfter < 0) {
            throw new IllegalArgumentException("staleAfter must be >= 0, got " + staleAfter);
        }
        return new Retention(staleAfter, Collections.emptySortedMap());
    }

    /**
     * This state with {@code current} (key → value, e.g. the labels this agent owns on the Node right now) taken as
     * the previous cycle's labels, so that a restart removes nothing on uncertainty either: which source produced
     * them is unknown, so each is kept while any source fails, within {@code staleAfter}.
     */
    public Retention withPrevious(Map<String, String> current) {
        SortedMap<String, Kept> state = new TreeMap<>(previous);
        current.forEach((k, v) -> state.putIfAbsent(k,
                new Kept(new Label(k, v, null, "published before this process started", Label.ANY_SOURCE), 0)));
        return new Retention(staleAfter, Collections.unmodifiableSortedMap(state));
    }

    /**
     * One cycle: {@code fresh} is what labelling produced from a discovery whose sources reported {@code statuses}.
     */
    public Step next(Collection<SourceStatus> statuses, LabelSet fresh) {
        Set<String> failed = new TreeSet<>();
        for (SourceStatus s : statuses) {
            if (!s.ok()) {
                failed.add(s.source());
            }
        }
        SortedMap<String, Kept> state = new TreeMap<>();
        SortedMap<String, Label> out = new TreeMap<>(fresh.labels());
        SortedMap<String, Label> kept = new TreeMap<>();
        fresh.labels().forEach((k, l) -> state.put(k, new Kept(l, 0)));
        for (Map.Entry<String, Kept> e : previous.entrySet()) {
            Kept old = e.getValue();
            Label now = out.get(e.getKey());
            if (now != null && now.value().equals(old.label().value())) {
                continue; // produced again, unchanged
            }
            // left out or changed: keep the last value while an input of the label (as it was, or as it is now)
            // failed, within staleAfter
            boolean uncertain = uncertain(old.label(), failed) || (now != null && uncertain(now, failed));
            if (uncertain && old.misses() < staleAfter) {
                state.put(e.getKey(), new Kept(old.label(), old.misses() + 1));
                out.put(e.getKey(), old.label());
                kept.put(e.getKey(), old.label());
            }
        }
        return new Step(new Retention(staleAfter, Collections.unmodifiableSortedMap(state)),
                new LabelSet(out, fresh.dropped()), Collections.unmodifiableSortedMap(kept));
    }

    private static boolean uncertain(Label label, Set<String> failed) {
        return label.inputs().isEmpty() ? !failed.isEmpty() : label.inputs().stream().anyMatch(failed::contains);
    }
}
