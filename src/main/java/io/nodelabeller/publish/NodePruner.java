package io.nodelabeller.publish;

import io.fabric8.kubernetes.client.KubernetesClient;


/**
 * {@code node-labeller prune} (uninstall): removes every label listed in the install's ownership annotation, every rule output
 * listed in the other tracking annotations (annotations, taints; extended resources through the status subresource)
 * and the tracking annotations themselves. What it does not own stays. One GET, then one PATCH when there is anything
 * to remove (and one status PATCH for extended resources); no watch.
 */
public final class NodePruner {

    private final KubernetesClient client;
    private final String nodeName;
    private final NodePublisher.Settings settings;
    private final PublishEvents events;
    private final Bookkeeping bookkeeping;

    /** The default install's outputs. */
    public NodePruner(KubernetesClient client, String nodeName, NodePublisher.Settings settings, PublishEvents events) {
        this(client, nodeName, settings, events, Bookkeeping.DEFAULT);
    }

    /** The outputs {@code bookkeeping}'s annotations list, and those annotations. */
    public NodePruner(KubernetesClient client, String nodeName, NodePublisher.Settings settings, PublishEvents events,
                      Bookkeeping bookkeeping) {
        this.bookkeeping = bookkeeping;
        this.client = client;
        this.nodeName = nodeName;
        this.settings = settings.withWatchTimeout(null);
        this.events = events;
    }

    /** Removes what it owns and its annotations; returns how many labels were removed (0: no label to remove). */
    public int prune() throws PublishException {
        try (NodePublisher publisher = new NodePublisher(client, nodeName, settings, events,
                Install.unchecked(bookkeeping))) {
            return (int) publisher.apply(NodePatch.Desired.nothing()).stream()
                    .filter(op -> op.op().equals("remove") && op.path().startsWith("/metadata/labels/"))
                    .count();
        }
    }
}
