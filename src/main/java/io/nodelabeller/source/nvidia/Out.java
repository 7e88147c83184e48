package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.Label;
import io.nodelabeller.source.pci.PciSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one {@link GpuLabeler} produces in one call: its {@code nvidia.com/} labels (a later {@code put} of the same
 * key wins) and notes, the problems worth a log line.
 */
final class Out {

    static final String PREFIX = "nvidia.com/";
    static final String SOURCE = NvidiaSource.NAME;
    /** Inputs of a label computed from NVML and the PCI scan together. */
    static final Set<String> NVML_AND_PCI = Set.of(NvidiaSource.NAME, PciSource.NAME);

    private final Map<String, Label> labels = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    /** A label computed from NVML (the nvidia source) alone. */
    void put(String name, Object value, String evidence) {
        put(name, value, Set.of(SOURCE), evidence);
    }

    /** A label computed from the features of {@code inputs} (gpu.present from the PCI scan alone, gpu.mode from both). */
    void put(String name, Object value, Set<String> inputs, String evidence) {
        labels.put(PREFIX + name, new Label(PREFIX + name, String.valueOf(value), SOURCE, evidence, inputs));
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
