package io.nodelabeller.publish;

import io.nodelabeller.label.LabelSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Stands in for the Kubernetes outputs under NFD's {@code core.noPublish}: writes nothing, and logs what would have
 * changed, once per change (first cycle: the count; later: the keys added, changed and removed).
 */
public final class DryRunPublisher implements Publisher {

    private static final Logger LOG = LoggerFactory.getLogger(DryRunPublisher.class);

    private SortedMap<String, String> last;

    @Override
    public String name() {
        return "dry-run";
    }

    @Override
    public synchronized boolean publish(LabelSet desired) {
        SortedMap<String, String> now = new TreeMap<>(desired.asMap());
        if (now.equals(last)) {
            return false;
        }
        if (last == null) {
            LOG.info("core.noPublish: nothing written to Kubernetes; {} label(s) would be published", now.size());
        } else {
            TreeSet<String> added = new TreeSet<>(now.keySet());
            added.removeAll(last.keySet());
            TreeSet<String> removed = new TreeSet<>(last.keySet());
            removed.removeAll(now.keySet());
            TreeSet<String> changed = new TreeSet<>();
            for (Map.Entry<String, String> e : now.entrySet()) {
                if (last.containsKey(e.getKey()) && !last.get(e.getKey()).equals(e.getValue())) {
                    changed.add(e.getKey());
                }
            }
            LOG.info("core.noPublish: nothing written to Kubernetes; would add {}, change {}, remove {}",
                    added, changed, removed);
        }
        last = now;
        return true;
    }
}
