package io.nodelabeller.source;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
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

    /**
     * Files are read and directories listed through java.io (cheaper per file than NIO's paths and channels), whose
     * failures say little: when one fails, the exception is still NIO's typed one, so that warnings give the reason
     * ("no such file", "permission denied") as they did.
     */
    @Test
    void failuresKeepTheirReasons() throws Exception {
        HostFs host = new HostFs(root);
        NoSuchFileException missing = assertThrows(NoSuchFileException.class, () -> host.read("/absent"));
        assertEquals("no such file", HostFs.reason(missing));
        // the open's own fallback, for a file that went between the check and the open
        assertThrows(NoSuchFileException.class, () -> HostFs.openRegular(root.resolve("absent").toFile()));
        Files.createDirectories(root.resolve("dir"));
        FileSystemException dir = assertThrows(FileSystemException.class, () -> host.read("/dir"));
        assertEquals("a directory, not a regular file: not read", HostFs.reason(dir));
        assertEquals("no such file", HostFs.reason(assertThrows(NoSuchFileException.class, () -> host.list("/absent"))));
        Files.writeString(root.resolve("file"), "x");
        NotDirectoryException notDir = assertThrows(NotDirectoryException.class, () -> host.list("/file"));
        // the reason only: a warning names the path itself ("cannot list /file: not a directory"), not twice
        assertEquals("not a directory", HostFs.reason(notDir));
        assertEquals(List.of(), host.listOrEmpty("/absent"));
    }

    /** Entries are listed sorted by name, as NFD's sources see them (Go's os.ReadDir sorts); "/" as the root reads the host. */
    @Test
    void listsAreSortedAndTheRootMayBeSlash() throws Exception {
        for (String name : List.of("0000:c1:00.0", "0000:07:00.0", "0000:41:00.1")) {
            Files.createDirectories(root.resolve("sys/bus/pci/devices/" + name));
        }
        HostFs host = new HostFs(root);
        assertEquals(List.of("0000:07:00.0", "0000:41:00.1", "0000:c1:00.0"), host.list("/sys/bus/pci/devices"));
        assertEquals(List.of("0000:07:00.0", "0000:41:00.1", "0000:c1:00.0"), host.list("sys/bus/pci/devices"), "relative = under the root");

        Files.writeString(root.resolve("file"), "x\n");
        HostFs slash = new HostFs(Path.of("/"));
        assertEquals("x\n", slash.read(root.resolve("file").toString()));
        assertEquals(List.of("0000:07:00.0", "0000:41:00.1", "0000:c1:00.0"), slash.list(root.resolve("sys/bus/pci/devices").toString()));
    }

    /**
     * A source given up at its deadline (or stopped by SIGTERM) is interrupted: its reads fail from then on, so that
     * it ends instead of reading the rest of the host (java.io's reads do not look at interrupts themselves).
     */
    /**
     * The one rule for hardware a node may not have: the kernel makes /sys/bus/usb, /sys/bus/nd, /sys/class/infiniband
     * only when the bus or driver is there, so a missing one on a visible sysfs is none of it; without a visible
     * sysfs, or when the directory cannot be listed, the caller fails and keeps its labels.
     */
    @Test
    void hardwareDirectoriesAreEmptyWhenMissingOnAVisibleSysfsOnly() throws Exception {
        HostFs host = new HostFs(root);
        FileSystemException noSysfs = assertThrows(NoSuchFileException.class, () -> host.listHardware("/sys/bus/usb/devices"));
        assertTrue(noSysfs.getMessage().contains("sysfs is not visible"), noSysfs.getMessage());
        Files.createDirectories(root.resolve("sys/devices"));
        assertEquals(List.of(), host.listHardware("/sys/bus/usb/devices"));
        Files.createDirectories(root.resolve("sys/bus/usb/devices/1-1"));
        Files.createDirectories(root.resolve("sys/bus/usb/devices/usb1"));
        assertEquals(List.of("1-1", "usb1"), host.listHardware("/sys/bus/usb/devices"));
        Files.createDirectories(root.resolve("sys/bus/nd"));
        Files.writeString(root.resolve("sys/bus/nd/devices"), "a file where the kernel makes a directory");
        assertThrows(FileSystemException.class, () -> host.listHardware("/sys/bus/nd/devices"));
    }

    @Test
    void anInterruptedSourceReadsNoMore() throws Exception {
        Files.writeString(root.resolve("file"), "x");
        Files.createDirectories(root.resolve("dir"));
        HostFs host = new HostFs(root);
        Thread.currentThread().interrupt();
        try {
            assertThrows(java.io.InterruptedIOException.class, () -> host.read("/file"));
            assertThrows(java.io.InterruptedIOException.class, () -> host.list("/dir"));
            assertThrows(java.io.InterruptedIOException.class, () -> host.open("/file").close());
            assertEquals(Optional.empty(), host.readTrimmed("/file"));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt stays for the source's next read");
        } finally {
            Thread.interrupted();
        }
        assertEquals("x", host.read("/file"));
    }
}
