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
        }
    }

    @Test
    void aMissingKubeconfigIsOneClearError(@TempDir Path dir) {
        Path missing = dir.resolve("nope");
        PublishException e = assertThrows(PublishException.class, () -> KubernetesClients.create(missing));
        assertTrue(e.getMessage().contains("--kubeconfig " + missing), e.getMessage());
    }
}
