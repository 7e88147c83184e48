package io.nodelabeller.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** {@code prune}: removes every owned label and the ownership annotation from the node (uninstall, SPEC §6). */
@Command(name = "prune", mixinStandardHelpOptions = true,
        description = "Remove every label node-labeller owns, and its annotation, from the node (uninstall).")
final class PruneCommand implements Callable<Integer> {

    @Mixin
    CommonOptions common;

    @Mixin
    KubeOptions kube;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (!kube.hasNodeName()) {
            spec.commandLine().getErr().println("node-labeller prune: no node name: set --node-name or the NODE_NAME"
                    + " environment variable");
            return Main.USAGE;
        }
        // LEAD (issue #4): call the publish package's prune class here with kube.client() and kube.nodeName,
        // returning OK when it succeeded. Until then the command must not pretend to have removed anything.
        spec.commandLine().getErr().println("node-labeller prune: not available in this build yet: nothing was removed");
        return Main.FAILURE;
    }
}
