package io.nodelabeller.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
