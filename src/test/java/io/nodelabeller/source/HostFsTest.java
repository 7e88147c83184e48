package io.nodelabeller.source;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** HostFs's optional reads and file stamps, under a host root. */
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
}
