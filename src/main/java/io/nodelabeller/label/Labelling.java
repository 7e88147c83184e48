package io.nodelabeller.label;

import com.google.re2j.Pattern;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelSet.Kind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Runs labelers over a feature snapshot and keeps only what may be sent: unprefixed keys get
 * {@code feature.node.kubernetes.io/} (taint keys excepted: as in nfd-master, an unprefixed taint is refused), the
 * whitelist applies to label names after "/", and every output passes {@link LabelValidity} for its kind (what is
 * dropped is logged once when it starts being dropped, not every cycle). Labelers run in order; a later labeler's
 * output replaces an earlier one's of the same key. A labeler that throws costs only its own outputs.
 */
public final class Labelling {

    private static final Logger LOG = LoggerFactory.getLogger(Labelling.class);

    /** The labelers by name, in merge order. */
    private final Map<String, Labeler> labelers;
    private final LabelValidity rules;
    private final Pattern whitelist;
    private final Set<Kind> kinds;
    /** What is dropped, logged when it changes (not every cycle), and once when nothing is any more. */
    private final io.nodelabeller.log.ProblemLog drops = new io.nodelabeller.log.ProblemLog(LOG, null);

    /** Labelling by {@code labelers} (name to labeler, in merge order), labels only. */
    public Labelling(Map<String, ? extends Labeler> labelers, LabelValidity rules, Pattern whitelist) {
        this(labelers, rules, whitelist, EnumSet.of(Kind.LABEL));
    }

    /** As above, keeping the outputs of {@code kinds} (the others rules produce are left out without a word). */
    public Labelling(Map<String, ? extends Labeler> labelers, LabelValidity rules, Pattern whitelist, Set<Kind> kinds) {
        this.labelers = Collections.unmodifiableMap(new LinkedHashMap<>(labelers));
        this.rules = rules;
        this.whitelist = whitelist;
        this.kinds = Collections.unmodifiableSet(EnumSet.copyOf(kinds));
    }

    /** The kinds of output kept. */
    public Set<Kind> kinds() {
        return kinds;
    }

    public LabelSet label(Features features) {
        Map<Kind, SortedMap<String, Label>> out = new EnumMap<>(Kind.class);
        for (Kind k : kinds) {
            out.put(k, new TreeMap<>());
        }
        List<LabelSet.Dropped> dropped = new ArrayList<>();
        Set<String> uncertain = new TreeSet<>();
        for (Map.Entry<String, Labeler> labeler : labelers.entrySet()) {
            Labeler.Produced produced;
            try {
                produced = labeler.getValue().produce(features);
            } catch (RuntimeException e) {
                LOG.warn("labeler {} failed, its labels are left out: {}", labeler.getKey(), e.toString());
                continue;
            }
            uncertain.addAll(produced.uncertain());
            keep(Kind.LABEL, produced.labels(), out.get(Kind.LABEL), dropped);
            produced.others().forEach((kind, outputs) -> {
                if (kinds.contains(kind)) {
                    keep(kind, outputs, out.get(kind), dropped);
                }
            });
        }
        Map<String, String> problems = new LinkedHashMap<>();
        for (LabelSet.Dropped d : dropped) {
            problems.put(d.reason() + " " + d.label().key(), "dropping " + d.label().key() + "=" + d.label().value() + " from "
                    + d.label().source() + ": " + d.reason());
        }
        if (problems.isEmpty()) {
            drops.ok("every output is valid again");
        } else {
            drops.report(problems);
        }
        SortedMap<String, Label> labels = out.remove(Kind.LABEL);
        return new LabelSet(labels, dropped, out, uncertain);
    }

    /** Whether label {@code key} with {@code value} would be kept: valid, and its name matches the whitelist. */
    public boolean admits(String key, String value) {
        return rules.problem(Kind.LABEL, key, value) == null
                && (whitelist == null || whitelist.matcher(key.substring(key.indexOf('/') + 1)).find());
    }

    private void keep(Kind kind, List<Label> produced, SortedMap<String, Label> into, List<LabelSet.Dropped> dropped) {
        for (Label label : produced) {
            Label l = kind != Kind.TAINT && label.key() != null && label.key().indexOf('/') < 0
                    ? label.withKey(LabelValidity.NFD_PREFIX + label.key())
                    : label;
            String problem = rules.problem(kind, l.key(), l.value());
            if (problem == null && kind == Kind.LABEL && whitelist != null && !whitelist.matcher(l.name()).find()) {
                problem = "name does not match core.labelWhiteList";
            }
            if (problem != null) {
                dropped.add(new LabelSet.Dropped(l, (kind == Kind.LABEL ? "" : kind + ": ") + problem));
                continue;
            }
            into.put(l.key(), l);
        }
    }
}
