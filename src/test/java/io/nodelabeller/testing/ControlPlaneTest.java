package io.nodelabeller.testing;

import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The test control plane is what development.md says it is. */
class ControlPlaneTest {

    /** The newest release under the assets folder is taken, by version and not by name. */
    @Test
    void theNewestReleaseIsTaken(@TempDir Path assets) throws Exception {
        String arch = System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64";
        for (String version : List.of("1.9.0", "1.33.4", "1.36.2", "1.36.10")) {
            Path dir = Files.createDirectories(assets.resolve("k8s/" + version + "-linux-" + arch));
            for (String bin : List.of("etcd", "kube-apiserver")) {
                Files.createFile(dir.resolve(bin), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            }
        }
        assertEquals("1.36.10-linux-" + arch, ControlPlane.binaries(assets).getFileName().toString());
    }

    /**
     * A token bound to a Pod carries the Pod's node name, as a DaemonSet pod's does; an unbound one carries none; the
     * API server serves as 1.33 does when asked (1.33 did not serve resource.k8s.io by default).
     */
    @Test
    void podBoundTokensNameTheirNodeAndOlderReleasesAreEmulated() {
        ControlPlane cp = ControlPlane.shared();
        try (KubernetesClient bound = cp.client(cp.podBoundToken("cp-test", "agent", "cp-test-node"));
             KubernetesClient unbound = cp.client(cp.podBoundToken("cp-test", "agent", null))) {
            assertEquals(List.of("cp-test-node"), review(bound).getStatus().getUserInfo().getExtra()
                    .get("authentication.kubernetes.io/node-name"));
            assertEquals("system:serviceaccount:cp-test:agent", review(unbound).getStatus().getUserInfo().getUsername());
            var extra = review(unbound).getStatus().getUserInfo().getExtra();
            assertTrue(extra == null || !extra.containsKey("authentication.kubernetes.io/node-name"), String.valueOf(extra));
        }
        assertTrue(groups(cp).contains("resource.k8s.io"));
        assertFalse(groups(ControlPlane.shared("1.33")).contains("resource.k8s.io"));
    }

    private static SelfSubjectReview review(KubernetesClient client) {
        return client.resource(new SelfSubjectReviewBuilder().build()).create();
    }

    private static List<String> groups(ControlPlane cp) {
        return cp.admin().getApiGroups().getGroups().stream().map(g -> g.getName()).toList();
    }
}
