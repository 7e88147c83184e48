package io.nodelabeller.label.gpu;

import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the GPU labelers of one cycle produce: labels merged in order (a later {@code put} of the same key wins,
 * as GFD's merged labelers) and notes, the problems worth a log line.
 */
final class Out {

    static final String PREFIX = "nvidia.com/";
    static final String SOURCE = "nvidia";

    private final Map<String, Label> labels = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    void put(String name, Object value, String evidence) {
        put(name, value, SOURCE, evidence);
    }

    /** A label owed to another source than nvidia (gpu.present comes from the PCI scan alone). */
    void put(String name, Object value, String source, String evidence) {
        labels.put(PREFIX + name, Label.of(PREFIX + name, String.valueOf(value), source, evidence));
    }

    /** The doc of a label this package puts with source nvidia. */
    static LabelDoc doc(String name, String from, Object example, String description) {
        return LabelDoc.of(PREFIX + name, SOURCE, from, String.valueOf(example), description);
    }

    void note(String message) {
        notes.add(message);
    }

    List<Label> labels() {
        return List.copyOf(labels.values());
    }

    List<String> notes() {
        return List.copyOf(notes);
    }
}
