package io.nodelabeller.label.nfd;

import io.nodelabeller.label.LabelRules;

/** Constants shared by the NFD-compatible labelers. */
final class Nfd {
    static final String PREFIX = LabelRules.NFD_PREFIX;

    private Nfd() {
    }
}
