package io.nodelabeller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.publish.PublishException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The Kubernetes client of {@code run} and {@code once}, built on a thread of its own as soon as the configuration
 * says an output needs it ({@link Outputs#needsClient}), while the rest is set up and the host discovered: building
 * it (fabric8's JSON mapper, the JDK HTTP client, TLS) is ~0.15 s of a start-up that waits for it before its first
 * request. Built as {@link Outputs#client} builds it ({@code --kubeconfig}, else fabric8's auto-configuration) and
 * taken by {@link Outputs#create}; discarded when a configuration error ends the command first. Its errors are
 * reported where they were before: by whoever takes it.
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

    /** Not needed after all (a configuration error): closed once built, without waiting. Null: nothing to do. */
    static void discard(EarlyClient early) {
        if (early != null) {
            early.client.thenAccept(KubernetesClient::close);
        }
    }
}
