package io.nodelabeller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.publish.PublishException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The Kubernetes client of {@code run} and {@code once}, built on a thread of its own from the moment the command
 * starts, while the configuration is read and the host discovered: building it (fabric8's JSON mapper, the JDK HTTP
 * client, TLS) is ~0.15 s of a start-up that waits for it before its first request. Built from the command line alone
 * ({@code --kubeconfig}, else fabric8's auto-configuration), as {@link Outputs#client} builds it; taken by
 * {@link Outputs#create} when an output needs Kubernetes, discarded otherwise. Its errors are reported where they
 * were before: by whoever takes it.
 */
final class EarlyClient {

    private final CompletableFuture<KubernetesClient> client = new CompletableFuture<>();

    private EarlyClient() {
    }

    /** Starts building the client for {@code kube}. */
    static EarlyClient start(KubeOptions kube) {
        EarlyClient early = new EarlyClient();
        Thread t = new Thread(() -> {
            try {
                early.client.complete(Outputs.client(kube));
            } catch (PublishException | RuntimeException | Error e) {
                early.client.completeExceptionally(e);
            }
        }, "kubernetes-client-start");
        t.setDaemon(true);
        t.start();
        return early;
    }

    /** The client, waiting for it to be built; the exception its building threw. */
    KubernetesClient take() throws PublishException {
        try {
            return client.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PublishException p) {
                throw p;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** Not needed after all (no Kubernetes output, a configuration error): closed once built, without waiting. */
    void discard() {
        client.thenAccept(KubernetesClient::close);
    }
}
