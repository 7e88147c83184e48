package io.nodelabeller.source;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HostFs's reads, optional reads and file stamps, under a host root. */
class HostFsTest {

    @TempDir
    Path root;

    @Test
    void optionalReadsOfMissingFilesAndDirectoriesAreEmpty() throws Exception {
        Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:00:01.0"));
        Files.writeString(root.resolve("sys/bus/pci/devices/0000:00:01.0/sriov_totalvfs"), " 8\n");
        HostFs host = new HostFs(root);
        assertEquals(Optional.of("8"), host.readTrimmed("/sys/bus/pci/devices/0000:00:01.0/sriov_totalvfs"));
        assertEquals(Optional.empty(), host.readTrimmed("/sys/bus/pci/devices/0000:00:01.0/iommu_group/type"));
        assertEquals(Optional.empty(), host.readTrimmed("/sys/bus/pci/devices/0000:00:01.0"), "a directory is not read");
        assertEquals(List.of(" 8"), host.readLines("/sys/bus/pci/devices/0000:00:01.0/sriov_totalvfs"));
        assertEquals(List.of(), host.readLines("/proc/absent"));
    }

    @Test
    void stampIsSizeAndModificationTimeOrEmpty() throws Exception {
        Path f = Files.writeString(root.resolve("config"), "CONFIG_A=y\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(1_700_000_000_000L));
        HostFs host = new HostFs(root);
        assertEquals(Optional.of(new HostFs.Stamp(11, 1_700_000_000_000L)), host.stamp("/config"));
        assertEquals(Optional.empty(), host.stamp("/absent"));
    }

    /**
     * A file is read whole whatever its size: the first bytes go into a small buffer (sysfs files hold a few), the
     * rest is read after them; a two-byte UTF-8 character across that boundary stays whole. Up to MAX_FILE_BYTES.
     */
    @Test
    void filesOfEverySizeAreReadWholeUpToTheLimit() throws Exception {
        HostFs host = new HostFs(root);
        for (int size : new int[] {0, 1, 255, 256, 257, 4096, 100_000}) {
            String text = "x".repeat(Math.max(0, size - 2)) + (size >= 2 ? "\u00e9" : "y".repeat(size)); // é: 2 bytes
            Files.writeString(root.resolve("f" + size), text);
            assertEquals(size, Files.size(root.resolve("f" + size)));
            assertEquals(text, host.read("/f" + size), size + " bytes");
            assertEquals(Optional.of(text.trim()), host.readTrimmed("/f" + size), size + " bytes");
        }
        String across = "a".repeat(255) + "\u00e9" + "b"; // é's two bytes are bytes 255 and 256
        Files.writeString(root.resolve("across"), across);
        assertEquals(across, host.read("/across"));

        Files.write(root.resolve("max"), new byte[HostFs.MAX_FILE_BYTES]);
        assertEquals(HostFs.MAX_FILE_BYTES, host.read("/max").length());
        Files.write(root.resolve("over"), new byte[HostFs.MAX_FILE_BYTES + 1]);
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> host.read("/over"));
        assertTrue(e.getMessage().contains("larger than " + HostFs.MAX_FILE_BYTES + " bytes"), e.getMessage());
        assertEquals(Optional.empty(), host.readTrimmed("/over"));
    }
}
