package io.nodelabeller.feature;

import java.util.List;

/**
 * How one source's discovery went. {@code error} is null when the source succeeded; a failed source
 * has empty features. Warnings are problems that cost a single feature (a device with a garbage
 * class file, a feature file over 64 KiB) while the rest of the source still succeeded.
 */
public record SourceStatus(String source, List<String> warnings, String error) {

    public SourceStatus {
        warnings = List.copyOf(warnings);
    }

    public boolean ok() {
        return error == null;
    }
}
