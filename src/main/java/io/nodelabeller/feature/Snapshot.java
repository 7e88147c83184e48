package io.nodelabeller.feature;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/** The result of one discovery: the merged features of every source that ran, and how each went. */
public record Snapshot(Features features, SortedMap<String, SourceStatus> statuses) {

    public Snapshot {
        statuses = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(statuses));
    }

    public static Snapshot of(Features features, Map<String, SourceStatus> statuses) {
        return new Snapshot(features, new TreeMap<>(statuses));
    }

    /** The sources that ran and failed (their previous labels should be kept). */
    public Set<String> failedSources() {
        java.util.TreeSet<String> failed = new java.util.TreeSet<>();
        statuses.forEach((name, status) -> {
            if (!status.ok()) {
                failed.add(name);
            }
        });
        return failed;
    }
}
