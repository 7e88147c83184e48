package io.nodelabeller.publish;

import io.nodelabeller.testing.TestKubeconfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KubernetesClientsTest {

    @Test
    void aKubeconfigGivesAClientWithTimeoutsAndNoRetriesOfItsOwn(@TempDir Path dir) throws Exception {
        Path kubeconfig = TestKubeconfig.write(dir, "https://127.0.0.1:6443");
        try (KubernetesClient client = KubernetesClients.create(kubeconfig, Duration.ofSeconds(7))) {
            assertEquals("https://127.0.0.1:6443/", client.getConfiguration().getMasterUrl());
            assertEquals(7000, client.getConfiguration().getRequestTimeout());
            assertEquals(7000, client.getConfiguration().getConnectionTimeout());
            assertEquals(0, client.getConfiguration().getRequestRetryBackoffLimit());
            assertFalse(client.getConfiguration().isOnlyHttpWatches());
            int base = client.getConfiguration().getWatchReconnectInterval();
            assertTrue(base >= 500 && base < 1500, "watch reconnect base " + base);
            assertEquals(-1, client.getConfiguration().getWatchReconnectLimit());
        }
    }

    /**
     * fabric8 waits base·2ⁿ before the n-th reconnect of a watch, the same for every client with the same base
     * (kubernetes-client-api ExponentialBackoffIntervalCalculator.getInterval): agents that lost their watches together
     * would reconnect together. Each draws its base, uniformly over [500, 1500) ms.
     */
    @Test
    void eachClientDrawsItsOwnWatchReconnectBase() {
        java.util.Random random = new java.util.Random(42);
        int[] perDecile = new int[10];
        for (int i = 0; i < 10_000; i++) {
            int base = KubernetesClients.reconnectBase(random);
            assertTrue(base >= 500 && base < 1500, "base " + base);
            perDecile[(base - 500) / 100]++;
        }
        for (int n : perDecile) {
            assertTrue(n > 850 && n < 1150, "uniform over [500, 1500): " + java.util.Arrays.toString(perDecile));
        }
    }

    @Test
    void aMissingKubeconfigIsOneClearError(@TempDir Path dir) {
        Path missing = dir.resolve("nope");
        PublishException e = assertThrows(PublishException.class, () -> KubernetesClients.create(missing));
        assertTrue(e.getMessage().contains("--kubeconfig " + missing), e.getMessage());
    }
}
