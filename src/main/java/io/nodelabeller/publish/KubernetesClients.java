package io.nodelabeller.publish;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builds the fabric8 client for publishing. Only {@code run}, {@code once} and {@code prune} call this;
 * {@code print} and {@code explain} never load fabric8.
 *
 * <p>Configuration: {@code --kubeconfig FILE} when given; otherwise fabric8's auto-configuration, which uses
 * {@code $KUBECONFIG} or {@code ~/.kube/config} when such a file exists and else the pod's service account
 * (in-cluster). In a DaemonSet pod there is no kubeconfig, so the service account is used.
 *
 * <p>fabric8's own retries are switched off ({@code requestRetryBackoffLimit=0}): it retries 429/503/resets
 * at 100/200/400 ms and ignores {@code Retry-After}; {@link NodePublisher} retries instead, honouring it.
 */
public final class KubernetesClients {

    private KubernetesClients() {
    }

    /** As {@link #create(Path, Duration)} with the publisher's default request timeout (10 s). */
    public static KubernetesClient create(Path kubeconfig) throws PublishException {
        return create(kubeconfig, NodePublisher.Settings.defaults().requestTimeout());
    }

    /**
     * @param kubeconfig     a kubeconfig file, or null for the default described above
     * @param requestTimeout the limit of one request (connect and answer)
     * @throws PublishException when the kubeconfig cannot be read or understood
     */
    public static KubernetesClient create(Path kubeconfig, Duration requestTimeout) throws PublishException {
        Config config;
        try {
            if (kubeconfig != null) {
                if (!Files.isReadable(kubeconfig)) {
                    throw new PublishException("--kubeconfig " + kubeconfig + ": no such readable file", 0, null);
                }
                config = Config.fromKubeconfig(Files.readString(kubeconfig));
            } else {
                config = Config.autoConfigure(null);
            }
        } catch (PublishException e) {
            throw e;
        } catch (Exception e) {
            throw new PublishException("cannot configure the Kubernetes client"
                    + (kubeconfig == null ? "" : " from " + kubeconfig) + ": " + e.getMessage(), 0, e);
        }
        int millis = (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
        config.setRequestTimeout(millis);
        config.setConnectionTimeout(millis);
        config.setRequestRetryBackoffLimit(0);
        // WebSocket watches only: fabric8's HTTP watch mis-decodes multi-byte UTF-8 split across chunks
        config.setOnlyHttpWatches(false);
        // The watches (our node's, the NodeFeatureRule informer's) reconnect by themselves for as long as we run, after
        // base·2ⁿ (n up to 5) with no jitter of fabric8's own: after an outage every agent of the cluster would come
        // back in the same second. A base drawn per process, in [0.5 s, 1.5 s), spreads them (docs/scale.md).
        config.setWatchReconnectInterval(reconnectBase(ThreadLocalRandom.current()));
        config.setWatchReconnectLimit(-1);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** The first watch reconnect delay in milliseconds, uniform in [500, 1500): one per process. */
    static int reconnectBase(java.util.random.RandomGenerator random) {
        return 500 + random.nextInt(1000);
    }
}
