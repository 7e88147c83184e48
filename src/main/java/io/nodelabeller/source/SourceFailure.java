package io.nodelabeller.source;

import io.nodelabeller.feature.Features;

/**
 * A source could not discover what it is for, but knows why: {@link #known()} holds the features that say so
 * (for example {@code nvidia.nvml.status=unavailable} and NVML's error). Discovery keeps those features and marks
 * the source failed, so the labels it produced before are kept (never remove on uncertainty) while
 * labelers can still tell the operator why.
 */
public final class SourceFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Features known;

    public SourceFailure(String message, Features known) {
        super(message);
        this.known = known;
    }

    public Features known() {
        return known;
    }
}
