package io.nodelabeller.source;

import io.nodelabeller.feature.Features;

/**
 * Reads one part of the host and returns typed features keyed {@code <name>.<feature>}. A source never
 * talks to Kubernetes and never produces labels. Its name (the first part of its feature keys, its name in
 * {@code --sources} and the tag of its labeler's labels) is the {@code NAME} constant of its class, which the
 * catalog lists it under.
 *
 * <p>Throw when the source as a whole cannot be discovered (its labels are then kept from the last good
 * cycle); call {@link Warnings#warn} for a problem that only costs one feature or one device.
 */
public interface Source {

    Features discover(HostFs host, Warnings warnings) throws Exception;

    /** Where a source reports a problem that costs one feature, not the whole source. */
    @FunctionalInterface
    interface Warnings {
        void warn(String message);
    }
}
