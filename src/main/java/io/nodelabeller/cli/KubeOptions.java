package io.nodelabeller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.publish.KubernetesClients;
import io.nodelabeller.publish.PublishException;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** Options of the commands that talk to Kubernetes: run, once, prune (SPEC §3). */
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

    /**
     * A Kubernetes client for the options. Only run/once/prune call this, and only when a Kubernetes output is on:
     * print and explain never start a client.
     */
    KubernetesClient client() throws PublishException {
        return KubernetesClients.create(kubeconfig);
    }
}
