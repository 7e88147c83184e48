package io.nodelabeller.testing;

import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Points a child node-labeller process at a test API server: a minimal kubeconfig file, or the environment. */
public final class TestKubeconfig {

    /**
     * NFD's NodeFeatureRule CRD, for a mock API server in CRUD mode ({@code expectCustomResource}): a cluster where it
     * is installed, as the GPU Operator installs it.
     */
    public static final CustomResourceDefinitionContext NODE_FEATURE_RULE_CRD = new CustomResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withPlural("nodefeaturerules")
            .withKind("NodeFeatureRule").withScope("Cluster").build();

    private TestKubeconfig() {
    }

    public static Path write(Path dir, String serverUrl) throws IOException {
        Path file = dir.resolve("kubeconfig");
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: test, cluster: {server: "%s"}}]
                contexts: [{name: test, context: {cluster: test, user: me}}]
                current-context: test
                users: [{name: me, user: {token: secret}}]
                """.formatted(serverUrl));
        return file;
    }

    /**
     * The environment of a child process configured as in a pod, without a kubeconfig to parse: fabric8 takes the
     * API server and token from {@code KUBERNETES_MASTER} / {@code KUBERNETES_AUTH_TOKEN} (in-cluster it reads
     * KUBERNETES_SERVICE_HOST and the service account the same way); {@code KUBECONFIG} and {@code HOME} point where
     * no kubeconfig is.
     */
    public static Map<String, String> podEnvironment(String serverUrl, Path emptyDir) {
        return Map.of("KUBERNETES_MASTER", serverUrl, "KUBERNETES_AUTH_TOKEN", "test-token",
                "HOME", emptyDir.toString(), "KUBECONFIG", emptyDir.resolve("no-kubeconfig").toString());
    }
}
