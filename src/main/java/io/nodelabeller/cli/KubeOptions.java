package io.nodelabeller.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Options of the commands that talk to Kubernetes: run, once, prune. Picocli reflects on this class
 * (and on every command) at start-up, for print too, so it names no fabric8 type: the client is made by
 * {@link Outputs#client(KubeOptions)}.
 */
final class KubeOptions {

    @Option(names = "--node-name", paramLabel = "NAME",
            description = "The node this agent runs on. Default: the NODE_NAME environment variable.")
    String nodeName;

    @Option(names = "--instance", paramLabel = "NAME",
            description = "The install this agent belongs to: the name of its ClusterRoleBinding, whose annotations say"
                    + " what it may write, and the prefix of its tracking annotations (<NAME>.node-labeller.io/managed-*;"
                    + " node-labeller: node-labeller.io/managed-*). Default: the NODE_LABELLER_INSTANCE environment"
                    + " variable; unset: no install (node-labeller.io/managed-*, the default write scope).")
    String instance;

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig file. Default: in-cluster service account, else ~/.kube/config.")
    Path kubeconfig;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /**
     * Checked when the command runs: like --config, a file named on the command line that is not there is a
     * usage error (exit 2), not a runtime failure.
     */
    void check() {
        checkInstance();
        if (kubeconfig != null && !Files.isRegularFile(kubeconfig)) {
            throw new ParameterException(command.commandLine(), "--kubeconfig " + kubeconfig + ": "
                    + (Files.exists(kubeconfig) ? "not a regular file" : "no such file"));
        }
    }

    /** The install named by {@code --instance} (or {@code NODE_LABELLER_INSTANCE}); empty when neither is set. */
    String instance() {
        return instance == null ? "" : instance.trim();
    }

    /** Checks the install's name: a usage error (exit 2) when it cannot prefix annotations. */
    void checkInstance() {
        String problem = instance().isEmpty() ? null : io.nodelabeller.publish.Bookkeeping.problem(instance());
        if (problem != null) {
            throw new ParameterException(command.commandLine(), "--instance (or NODE_LABELLER_INSTANCE): " + problem);
        }
    }

    boolean hasNodeName() {
        return nodeName != null && !nodeName.isBlank();
    }
}
