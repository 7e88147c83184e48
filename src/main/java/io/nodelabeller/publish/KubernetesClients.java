package io.nodelabeller.publish;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

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
        // the watch of our node reconnects by itself, from 1 s up to fabric8's cap, for as long as we run
        config.setWatchReconnectInterval(1000);
        config.setWatchReconnectLimit(-1);
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
