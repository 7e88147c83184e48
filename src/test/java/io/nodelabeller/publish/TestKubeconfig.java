package io.nodelabeller.publish;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a minimal kubeconfig (token auth) pointing at a test server. */
public final class TestKubeconfig {

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
}
