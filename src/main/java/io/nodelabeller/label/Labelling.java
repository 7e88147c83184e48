package io.nodelabeller.label;

import io.nodelabeller.feature.Features;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import com.google.re2j.Pattern;

/**
 * Runs labelers over a feature snapshot and keeps only what may be sent: unprefixed keys get
 * {@code feature.node.kubernetes.io/}, the whitelist applies to the name after "/", and every label passes
 * {@link LabelValidity}. Labelers run in order; a later labeler's label replaces an earlier one's of the same key.
 * A labeler that throws costs only its own labels.
 */
public final class Labelling {

    private static final Logger LOG = LoggerFactory.getLogger(Labelling.class);

    /** The labelers by name, in merge order. */
    private final Map<String, Labeler> labelers;
    private final LabelValidity rules;
    private final Pattern whitelist;

    /** Labelling by {@code labelers} (name to labeler, in merge order). */
    public Labelling(Map<String, ? extends Labeler> labelers, LabelValidity rules, Pattern whitelist) {
        this.labelers = Collections.unmodifiableMap(new LinkedHashMap<>(labelers));
        this.rules = rules;
        this.whitelist = whitelist;
    }

    public LabelSet label(Features features) {
        SortedMap<String, Label> out = new TreeMap<>();
        List<LabelSet.Dropped> dropped = new ArrayList<>();
        for (Map.Entry<String, Labeler> labeler : labelers.entrySet()) {
            List<Label> produced;
            try {
                produced = labeler.getValue().labels(features);
            } catch (RuntimeException e) {
                LOG.warn("labeler {} failed, its labels are left out: {}", labeler.getKey(), e.toString());
                continue;
            }
            for (Label label : produced) {
                Label l = label.key() != null && label.key().indexOf('/') < 0
                        ? label.withKey(LabelValidity.NFD_PREFIX + label.key())
                        : label;
                String problem = rules.problem(l.key(), l.value());
                if (problem == null && whitelist != null && !whitelist.matcher(l.name()).find()) {
                    problem = "name does not match core.labelWhiteList";
                }
                if (problem != null) {
                    dropped.add(new LabelSet.Dropped(l, problem));
                    LOG.warn("dropping label {}={} from {}: {}", l.key(), l.value(), l.source(), problem);
                    continue;
                }
                out.put(l.key(), l);
            }
        }
        return new LabelSet(out, dropped);
    }
}
