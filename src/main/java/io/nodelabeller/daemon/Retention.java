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
 * "Never remove a label on uncertainty": decides, cycle by cycle, which labels of the previous
 * cycle are kept although this cycle's labelling no longer produced them. Immutable; {@link #next} returns the
 * state for the following cycle with the labels to publish.
 *
 * <p>A label depends on the source its labeler is named after ({@code Label.source()}: built-in labelers carry
 * their source's name). A label whose labeler is not named after a known source (custom rules, which may read
 * features of any source) depends on every source that ran. A missing label is uncertain when a source it
 * depends on failed this cycle; it is then kept for up to {@code staleAfter} consecutive uncertain cycles and
 * removed on the next one. A label is removed at once when every source it depends on succeeded (or was not
 * run at all, i.e. was switched off) and it was not produced again.
 */
public final class Retention {

    /** A label carried over from an earlier cycle: {@code misses} consecutive uncertain cycles without it. */
    record Kept(Label label, int misses) {
    }

    /** The labels to publish this cycle, the state for the next one, and which labels were only kept. */
    public record Step(Retention next, LabelSet labels, SortedMap<String, Label> kept) {
    }

    private final int staleAfter;
    private final Set<String> sourceNames;
    private final SortedMap<String, Kept> previous;

    private Retention(int staleAfter, Set<String> sourceNames, SortedMap<String, Kept> previous) {
        this.staleAfter = staleAfter;
        this.sourceNames = sourceNames;
        this.previous = previous;
    }

    /**
     * The state before the first cycle: nothing known. {@code sourceNames} are all known source names, so that a
     * labeler named after a source that did not run is told apart from a labeler that reads many sources.
     */
    public static Retention initial(int staleAfter, Collection<String> sourceNames) {
        if (staleAfter < 0) {
            throw new IllegalArgumentException("staleAfter must be >= 0, got " + staleAfter);
        }
        return new Retention(staleAfter, Set.copyOf(sourceNames), Collections.emptySortedMap());
    }

    /**
     * This state with {@code current} (key → value, e.g. the labels this agent owns on the Node right now) taken as
     * the previous cycle's labels, so that a restart removes nothing on uncertainty either: which source produced
     * them is unknown, so each is kept while any source fails, within {@code staleAfter}.
     */
    public Retention withPrevious(Map<String, String> current) {
        SortedMap<String, Kept> state = new TreeMap<>(previous);
        current.forEach((k, v) -> state.putIfAbsent(k, new Kept(Label.of(k, v, null, "published before this process started"), 0)));
        return new Retention(staleAfter, sourceNames, Collections.unmodifiableSortedMap(state));
    }

    /** Labels published (produced or kept) in the last cycle, by key. */
    public SortedMap<String, Label> labels() {
        SortedMap<String, Label> out = new TreeMap<>();
        previous.forEach((k, kept) -> out.put(k, kept.label()));
        return Collections.unmodifiableSortedMap(out);
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
            if (out.containsKey(e.getKey())) {
                continue;
            }
            Kept old = e.getValue();
            if (uncertain(old.label().source(), failed) && old.misses() < staleAfter) {
                state.put(e.getKey(), new Kept(old.label(), old.misses() + 1));
                out.put(e.getKey(), old.label());
                kept.put(e.getKey(), old.label());
            }
        }
        return new Step(new Retention(staleAfter, sourceNames, Collections.unmodifiableSortedMap(state)),
                new LabelSet(out, fresh.dropped()), Collections.unmodifiableSortedMap(kept));
    }

    private boolean uncertain(String labeler, Set<String> failed) {
        return labeler != null && sourceNames.contains(labeler) ? failed.contains(labeler) : !failed.isEmpty();
    }
}
