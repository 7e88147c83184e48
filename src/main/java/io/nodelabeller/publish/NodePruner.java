package io.nodelabeller.publish;

import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.TreeMap;

/**
 * {@code node-labeller prune} (uninstall): removes every label listed in the ownership annotation and the
 * annotation itself, in one JSON Patch. Labels it does not own stay. One GET, then one PATCH when there is
 * anything to remove; no watch.
 */
public final class NodePruner {

    private final KubernetesClient client;
    private final String nodeName;
    private final NodePublisher.Settings settings;
    private final PublishEvents events;

    public NodePruner(KubernetesClient client, String nodeName, NodePublisher.Settings settings, PublishEvents events) {
        this.client = client;
        this.nodeName = nodeName;
        this.settings = settings.withWatchTimeout(null);
        this.events = events;
    }

    /** Removes the owned labels and the annotation; returns how many labels were removed (0: nothing to do). */
    public int prune() throws PublishException {
        try (NodePublisher publisher = new NodePublisher(client, nodeName, settings, events)) {
            return (int) publisher.apply(new TreeMap<>()).stream()
                    .filter(op -> op.op().equals("remove") && op.path().startsWith("/metadata/labels/"))
                    .count();
        }
    }
}
