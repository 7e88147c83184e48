package io.nodelabeller.label.nfd;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelRules;

/** Constants shared by the NFD-compatible labelers. */
final class Nfd {
    static final String PREFIX = LabelRules.NFD_PREFIX;

    /**
     * Where instance {@code i} of {@code key} was read (the hardware sources record it under
     * {@code "<key>[i]"}), or null when the source recorded none.
     */
    static String instanceOrigin(Features f, String key, int i) {
        return f.origin(key + "[" + i + "]");
    }

    private Nfd() {
    }
}
