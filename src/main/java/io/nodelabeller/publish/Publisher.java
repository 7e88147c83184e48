package io.nodelabeller.publish;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelSet;

/**
 * Writes a cycle's labels somewhere (the Node, a NodeFeature object, a features.d file, stdout). Only
 * publishers talk to Kubernetes. A publisher is told the complete desired set every cycle and decides
 * itself whether anything needs writing.
 */
public interface Publisher extends AutoCloseable {

    String name();

    /**
     * Makes the target show {@code desired}: adds and changes labels, removes only labels this publisher
     * owns that are no longer desired. Returns true when something was written, false when the target was
     * already right. Throws {@link PublishException} when the target could not be brought up to date; the
     * caller retries at the next cycle and loses nothing.
     */
    boolean publish(LabelSet desired) throws PublishException;

    /**
     * {@link #publish(LabelSet)} for publishers that also write the discovered features (the NodeFeature object);
     * the others ignore {@code features}. The cycle calls this one.
     */
    default boolean publish(LabelSet desired, Features features) throws PublishException {
        return publish(desired);
    }

    @Override
    default void close() {
    }
}
