package io.nodelabeller.cli;

import picocli.CommandLine.Mixin;

/** A command that talks to Kubernetes (run, once, prune): the common options plus the node and the kubeconfig. */
abstract class KubeCommand extends HostCommand {

    @Mixin
    KubeOptions kube;
}
