package io.nodelabeller.publish;

/**
 * What the node publisher tells the daemon for its metrics. Called on the publishing thread; implementations
 * must be quick and must not throw.
 */
public interface PublishEvents {

    /** Does nothing; the default when nobody listens. */
    PublishEvents NONE = new PublishEvents() {
    };

    /** A PATCH of the Node was accepted by the API server. */
    default void patchSent() {
    }

    /**
     * A request to the API server failed: {@code status} is the HTTP status, or 0 for a timeout, a reset or
     * another I/O failure.
     */
    default void apiError(int status) {
    }
}
