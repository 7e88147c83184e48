package io.nodelabeller.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * Options of the commands that talk to Kubernetes: run, once, prune (SPEC §3). Picocli reflects on this class
 * (and on every command) at start-up, for print too, so it names no fabric8 type: the client is made by
 * {@link Outputs#client(KubeOptions)}.
 */
final class KubeOptions {

    @Option(names = "--node-name", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}",
            description = "The node this agent runs on. Default: the NODE_NAME environment variable.")
    String nodeName;

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig file. Default: in-cluster service account, else ~/.kube/config.")
    Path kubeconfig;

    boolean hasNodeName() {
        return nodeName != null && !nodeName.isBlank();
    }
}
