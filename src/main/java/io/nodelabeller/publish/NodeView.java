package io.nodelabeller.publish;

import io.nodelabeller.log.ProblemLog;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * The publisher's current copy of its Node, kept up to date by a watch on that one Node (field selector
 * {@code metadata.name}, bookmarks on) so that a cycle needs no GET. One WebSocket watch with a long
 * {@code timeoutSeconds}; when the server ends it, fabric8 re-opens it from the last resourceVersion seen. An
 * informer would re-list and re-watch every 5–10 minutes; this costs about one request per {@code watchTimeout}.
 *
 * <p>The copy is trusted only while the watch is open and has shown a sign of life (an event or a bookmark: a
 * live API server sends one about every minute) within {@code silenceLimit}; otherwise {@link #current()} returns
 * null and the publisher reads the node again. A connection that is black-holed (a stuck API server, a dropped
 * NAT entry) delivers nothing and does not close: when that read shows a change the watch never delivered, the
 * watch is dead, and it is closed and opened again from the read. After a 410 (the resourceVersion is too old,
 * as a node's own often is when it has not changed for a while) the watch is opened again from a fresh LIST's
 * resourceVersion. Without a watch ({@code watchTimeout} null) the copy is never trusted: every cycle GETs.
 */
final class NodeView implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeView.class);

    private final KubernetesClient client;
    private final String nodeName;
    private final Duration watchTimeout;
    private final Timing timing;
    private final long silenceNanos;
    private final ProblemLog problems;

    private Node node;
    private boolean valid;
    private long lastSeen;
    private Watch watch;
    private Events events;
    private boolean closed;
    /** The last watch ended with 410 Gone: the next one starts from a fresh LIST's resourceVersion. */
    private boolean gone;

    NodeView(KubernetesClient client, String nodeName, Duration watchTimeout, Duration silenceLimit, Timing timing) {
        this.client = client;
        this.nodeName = nodeName;
        this.watchTimeout = watchTimeout;
        this.timing = timing;
        this.silenceNanos = watchTimeout == null ? 0 : silenceLimit.toNanos();
        this.problems = new ProblemLog(LOG, "node " + nodeName + " watch");
    }

    /** The node as last seen, or null when it must be read again. */
    synchronized Node current() {
        if (!valid || watch == null || node == null) {
            return null;
        }
        if (timing.nanoTime() - lastSeen > silenceNanos) {
            LOG.debug("node {}: no word from the watch for {}, reading the node again", nodeName, Duration.ofNanos(silenceNanos));
            return null;
        }
        return node;
    }

    /** The last copy whether trusted or not (tests wait on it for a watch event). */
    synchronized Node peek() {
        return node;
    }

    /**
     * A fresh read (GET) of the node: trust it, and start the watch from its resourceVersion if none runs. If a
     * watch is open but the read is newer than anything it delivered, the watch is dead: it is replaced.
     */
    void seed(Node fresh) {
        Events listener = null;
        Watch dead = null;
        boolean relist = false;
        synchronized (this) {
            if (events != null && node != null && strictlyNewer(fresh, node)) {
                LOG.warn("node {}: the watch delivered nothing while the node changed (resourceVersion {} -> {}):"
                        + " it is dead (a black-holed connection?); opening it again", nodeName,
                        node.getMetadata().getResourceVersion(), fresh.getMetadata().getResourceVersion());
                dead = watch;
                watch = null;
                events = null;
            }
            if (isNewer(fresh, node)) {
                node = fresh;
            }
            valid = true;
            lastSeen = timing.nanoTime();
            if (events == null && watchTimeout != null && !closed) {
                // registered before the watch opens so that no event of the new watch is ignored
                listener = new Events();
                events = listener;
                relist = gone;
                gone = false;
            }
        }
        if (dead != null) {
            dead.close();
        }
        if (listener == null) {
            return;
        }
        String from = relist ? freshResourceVersion(fresh) : fresh.getMetadata().getResourceVersion();
        Watch opened = open(from, listener);
        synchronized (this) {
            if (opened == null) {
                if (events == listener) {
                    events = null;
                }
            } else if (closed || events != listener) {
                opened.close();
            } else {
                watch = opened;
            }
        }
    }

    /**
     * The resourceVersion of a LIST of this one node: the store's current revision, not the node's own (which is
     * as old as its last change and may be too old to watch from). Falls back to the node's own on failure.
     */
    private String freshResourceVersion(Node fresh) {
        try {
            NodeList list = client.nodes().withField("metadata.name", nodeName).list();
            for (Node n : list.getItems()) {
                offer(n);
            }
            return list.getMetadata().getResourceVersion();
        } catch (RuntimeException e) {
            LOG.info("node {}: cannot list the node for a fresh resourceVersion ({}); watching from its own", nodeName, e.getMessage());
            return fresh.getMetadata().getResourceVersion();
        }
    }

    /** The node as the API server answered our PATCH. */
    synchronized void offer(Node fresh) {
        if (fresh != null && isNewer(fresh, node)) {
            node = fresh; // not a sign of life of the watch: lastSeen stays
        }
    }

    /** After a failed request the copy may be stale: the next cycle reads the node again. */
    synchronized void invalidate() {
        valid = false;
    }

    @Override
    public void close() {
        Watch w;
        synchronized (this) {
            closed = true;
            w = watch;
            watch = null;
            events = null;
            valid = false;
        }
        if (w != null) {
            w.close();
        }
    }

    private Watch open(String resourceVersion, Events listener) {
        ListOptions options = new ListOptionsBuilder()
                .withFieldSelector("metadata.name=" + nodeName)
                .withResourceVersion(resourceVersion)
                .withTimeoutSeconds(watchTimeout.toSeconds())
                .withAllowWatchBookmarks(true)
                .build();
        try {
            Watch w = client.nodes().watch(options, listener);
            problems.ok();
            return w;
        } catch (RuntimeException e) {
            // without a watch we read the node every cycle: slower, still correct
            problems.failed("watch", "cannot watch the node (" + e.getMessage() + "); reading it every cycle until the watch works");
            return null;
        }
    }

    /**
     * resourceVersions are opaque by contract, numeric in practice (etcd revisions): the sign of the numeric
     * comparison of {@code candidate}'s with {@code known}'s, or null when they are not both numbers.
     */
    static Integer compareVersions(Node candidate, Node known) {
        try {
            return Long.compare(Long.parseLong(candidate.getMetadata().getResourceVersion()),
                    Long.parseLong(known.getMetadata().getResourceVersion()));
        } catch (NumberFormatException | NullPointerException notNumbers) {
            return null;
        }
    }

    /** At least as new; when the versions cannot be compared, the candidate is taken as newer. */
    static boolean isNewer(Node candidate, Node known) {
        if (known == null) {
            return true;
        }
        Integer c = compareVersions(candidate, known);
        return c == null || c >= 0;
    }

    /** Strictly newer; false when the versions cannot be compared (no proof that a change was missed). */
    static boolean strictlyNewer(Node candidate, Node known) {
        Integer c = compareVersions(candidate, known);
        return c != null && c > 0;
    }

    private final class Events implements Watcher<Node> {
        @Override
        public void eventReceived(Action action, Node resource) {
            synchronized (NodeView.this) {
                if (events != this) {
                    return;
                }
                switch (action) {
                    case ADDED, MODIFIED -> {
                        if (resource != null && nodeName.equals(resource.getMetadata().getName()) && isNewer(resource, node)) {
                            node = resource;
                        }
                        lastSeen = timing.nanoTime();
                    }
                    case DELETED -> {
                        node = null;
                        valid = false;
                    }
                    case BOOKMARK -> lastSeen = timing.nanoTime();
                    default -> valid = false;
                }
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            // e.g. 410 Gone: the resourceVersion is too old; the next cycle reads the node and watches again,
            // from a LIST's resourceVersion (the node's own would be just as old)
            LOG.info("node {}: watch ended ({}); will read the node again", nodeName, cause.getMessage());
            if (cause.isHttpGone()) {
                synchronized (NodeView.this) {
                    if (events == this) {
                        gone = true;
                    }
                }
            }
            ended();
        }

        @Override
        public void onClose() {
            ended();
        }

        private void ended() {
            synchronized (NodeView.this) {
                if (events == this) {
                    watch = null;
                    events = null;
                    valid = false;
                }
            }
        }
    }
}
