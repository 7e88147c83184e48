package io.nodelabeller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.publish.Bookkeeping;
import io.nodelabeller.publish.NodePruner;
import io.nodelabeller.publish.NodePublisher;
import io.nodelabeller.publish.PublishEvents;
import io.nodelabeller.publish.PublishException;
import picocli.CommandLine.Command;

/** {@code prune}: removes every owned label and the ownership annotation from the node (uninstall). */
@Command(name = "prune", mixinStandardHelpOptions = true,
        description = "Remove every label node-labeller owns, and its annotation, from the node (uninstall).")
final class PruneCommand extends KubeCommand {

    @Override
    public Integer call() {
        kube.check();
        if (!kube.hasNodeName()) {
            spec.commandLine().getErr().println("node-labeller prune: no node name: set --node-name or the NODE_NAME"
                    + " environment variable");
            return Main.USAGE;
        }
        try (KubernetesClient client = Outputs.client(kube)) {
            Bookkeeping bk = Bookkeeping.of(kube.instance());
            int removed = new NodePruner(client, kube.nodeName, NodePublisher.Settings.defaults(), PublishEvents.NONE, bk)
                    .prune();
            spec.commandLine().getOut().println("node " + kube.nodeName + ": removed " + removed
                    + " owned label(s) and the " + bk.labels() + " annotation");
            return Main.OK;
        } catch (PublishException e) {
            spec.commandLine().getErr().println("node-labeller prune: " + e.getMessage());
            return Main.FAILURE;
        }
    }
}
