package io.nodelabeller.daemon;

import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.LabelSet.Kind;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * "Never remove a label on uncertainty": decides, cycle by cycle, which labels (and rule outputs: annotations,
 * taints, extended resources, each kind on its own) of the previous cycle are kept
 * although this cycle's labelling no longer produced them, or produced them with another value. Immutable;
 * {@link #next} returns the state for the following cycle with the labels to publish.
 *
 * <p>A label depends on the sources it was computed from ({@link Label#inputs()}: a built-in labeler's labels on its
 * own source, {@code nvidia.com/gpu.mode} on the nvidia and pci sources, a rule's outputs on the sources of the
 * features the rule reads). When one of them failed this cycle the label is uncertain: its last value is kept —
 * whether this cycle left it out or gave it another value — for up to {@code staleAfter} consecutive uncertain
 * cycles, and dropped (or replaced) on the next. When every input succeeded (or was switched off), this cycle's
 * labels are taken as they are, whatever other sources do. A label found on the node at start-up has an unknown
 * origin ({@link Label#ANY_SOURCE}): it counts as depending on every source until a cycle produces it again, which
 * gives it its inputs.
 *
 * <p>A source may be <em>held</em>: an output depending on it is kept while it fails without counting towards
 * {@code staleAfter}. The GPU agent holds the {@code nvidia} source, as GPU Feature Discovery keeps its labels while it
 * crash-loops: NVML fails while a driver is (re)installed, and the GPU labels describe the same GPUs until the host
 * agent, from the PCI bus, says they are gone.
 */
public final class Retention {

    /** An output carried over from an earlier cycle: {@code misses} consecutive uncertain cycles without it. */
    record Kept(Label label, int misses) {
    }

    /**
     * The outputs to publish this cycle, the state for the next one, which labels were only kept, and the failed
     * inputs they were kept for.
     */
    public record Step(Retention next, LabelSet labels, SortedMap<String, Label> kept, Set<String> keptFor) {
    }

    private final int staleAfter;
    private final Set<String> held;
    private final Map<Kind, SortedMap<String, Kept>> previous;

    private Retention(int staleAfter, Set<String> held, Map<Kind, SortedMap<String, Kept>> previous) {
        this.staleAfter = staleAfter;
        this.held = held;
        this.previous = previous;
    }

    /** The state before the first cycle: nothing known. */
    public static Retention initial(int staleAfter) {
        return initial(staleAfter, Set.of());
    }

    /** As {@link #initial(int)}, the outputs of the {@code held} sources kept while they fail, however long. */
    public static Retention initial(int staleAfter, Set<String> held) {
        if (staleAfter < 0) {
            throw new IllegalArgumentException("staleAfter must be >= 0, got " + staleAfter);
        }
        return new Retention(staleAfter, Set.copyOf(held), Map.of());
    }

    /**
     * This state with {@code current} (key → value of {@code kind}, e.g. the labels, annotations, taints or extended
     * resources this agent owns on the Node right now) taken as the previous cycle's outputs, so that a restart removes
     * nothing on uncertainty either: which source produced them is unknown, so each is kept while any source fails,
     * within {@code staleAfter}.
     */
    public Retention withPrevious(Kind kind, Map<String, String> current) {
        Map<Kind, SortedMap<String, Kept>> all = new EnumMap<>(Kind.class);
        all.putAll(previous);
        SortedMap<String, Kept> state = new TreeMap<>(previous.getOrDefault(kind, Collections.emptySortedMap()));
        current.forEach((k, v) -> state.putIfAbsent(k,
                new Kept(new Label(k, v, null, "published before this process started", Label.ANY_SOURCE), 0)));
        all.put(kind, Collections.unmodifiableSortedMap(state));
        return new Retention(staleAfter, held, Collections.unmodifiableMap(all));
    }

    /**
     * One cycle: {@code fresh} is what labelling produced from a discovery whose sources reported {@code statuses}
     * (an input labelling could not read, {@link LabelSet#uncertain()}, counts as a failed source).
     */
    public Step next(Collection<SourceStatus> statuses, LabelSet fresh) {
        return next(statuses, fresh, true);
    }

    /**
     * As {@link #next(Collection, LabelSet)}; {@code counts} false for a cycle that does not count towards
     * {@code staleAfter} (one fired by a change between scheduled cycles): what it keeps is kept, its misses stay.
     */
    public Step next(Collection<SourceStatus> statuses, LabelSet fresh, boolean counts) {
        Set<String> failed = new TreeSet<>(fresh.uncertain());
        for (SourceStatus s : statuses) {
            if (!s.ok()) {
                failed.add(s.source());
            }
        }
        // kept however long, without counting: what labelling could not read, and the held sources that failed
        Set<String> waitFor = new TreeSet<>(fresh.uncertain());
        waitFor.addAll(intersection(failed, held));
        Map<Kind, SortedMap<String, Kept>> state = new EnumMap<>(Kind.class);
        LabelSet out = fresh;
        SortedMap<String, Label> keptLabels = null;
        Set<String> keptFor = null;
        for (Kind kind : Kind.values()) {
            if (!fresh.produces(kind)) {
                // switched off: publishing leaves what the node has of this kind alone, and so does retention
                if (previous.containsKey(kind)) {
                    state.put(kind, previous.get(kind));
                }
                continue;
            }
            SortedMap<String, Kept> next = new TreeMap<>();
            SortedMap<String, Label> kept = new TreeMap<>();
            Set<String> waitedFor = new TreeSet<>();
            SortedMap<String, Label> outputs = step(previous.getOrDefault(kind, Collections.emptySortedMap()),
                    fresh.of(kind), failed, waitFor, counts, next, kept, waitedFor);
            state.put(kind, Collections.unmodifiableSortedMap(next));
            out = out.with(kind, outputs);
            if (kind == Kind.LABEL) {
                keptLabels = kept;
                keptFor = waitedFor;
            }
        }
        return new Step(new Retention(staleAfter, held, Collections.unmodifiableMap(state)), out,
                Collections.unmodifiableSortedMap(keptLabels), Collections.unmodifiableSet(keptFor));
    }

    /**
     * {@code unreadable}: inputs of labelling itself that are unknown this cycle (the NodeFeatureRule objects before
     * they could be read), and the held sources that failed: outputs that depend on them are kept without counting
     * towards {@code staleAfter} — an agent that cannot read the objects (RBAC) must not, after a few cycles, remove
     * what they produced.
     */
    private SortedMap<String, Label> step(SortedMap<String, Kept> before, SortedMap<String, Label> fresh,
                                          Set<String> failed, Set<String> unreadable, boolean counts,
                                          SortedMap<String, Kept> state,
                                          SortedMap<String, Label> kept, Set<String> keptFor) {
        SortedMap<String, Label> out = new TreeMap<>(fresh);
        fresh.forEach((k, l) -> state.put(k, new Kept(l, 0)));
        for (Map.Entry<String, Kept> e : before.entrySet()) {
            Kept old = e.getValue();
            Label now = out.get(e.getKey());
            if (now != null && now.value().equals(old.label().value())) {
                continue; // produced again, unchanged
            }
            // left out or changed: keep the last value while an input of the output failed — of the output as it
            // was and as it is now, or only as it is now when it was found on the node and its origin is unknown
            List<Label> basis = now == null ? List.of(old.label())
                    : old.label().originUnknown() ? List.of(now) : List.of(old.label(), now);
            boolean waiting = basis.stream().anyMatch(l -> l.dependsOnAny(unreadable));
            if (waiting || (basis.stream().anyMatch(l -> l.dependsOnAny(failed)) && old.misses() < staleAfter)) {
                state.put(e.getKey(), waiting || !counts ? old : new Kept(old.label(), old.misses() + 1));
                out.put(e.getKey(), old.label());
                kept.put(e.getKey(), old.label());
                basis.forEach(l -> keptFor.addAll(l.originUnknown() ? failed : intersection(l.inputs(), failed)));
            }
        }
        return out;
    }

    private static Set<String> intersection(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.retainAll(b);
        return out;
    }
}
