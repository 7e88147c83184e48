package io.nodelabeller.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * NFD's PCI test tree {@code testdata/source/pci/rootfs-1}, written into a directory:
 * 11 device directories, of which {@code 0000:00:1f.2} has no vendor file.
 */
public final class NfdPciRootfs1 {

    private NfdPciRootfs1() {
    }

    /** dir, class, vendor, device, subsystem vendor, subsystem device, then optional files as name=value. */
    private static final String[][] DEVICES = {
            {"0000:00:04.0", "088000", "8086", "2021", "8086", "35cf"},
            {"0000:00:11.1", "ff0000", "8086", "a1ed", "8086", "35cf"},
            {"0000:00:11.5", "010601", "8086", "a1d2", "8086", "35cf"},
            {"0000:00:14.2", "118000", "8086", "a1b1", "8086", "35cf"},
            {"0000:00:16.0", "078000", "8086", "a1ba", "8086", "35cf"},
            {"0000:00:1c.0", "060400", "8086", "a193", "8086", "35cf"},
            {"0000:00:1f.2", "058000", null, "a1a1", "8086", "35cf"},
            {"0000:00:1f.5", "0c8000", "8086", "a1a4", "8086", "35cf"},
            {"0000:02:00.0", "030000", "1a03", "2000", "1a03", "2000"},
            {"0000:3b:00.0", "0b4000", "8086", "37c8", "8086", "35cf",
                    "sriov_totalvfs=16", "iommu_group/type=identity", "iommu/intel-iommu/version=1:0"},
            {"0000:3f:00.0", "020000", "8086", "37d2", "8086", "35cf", "sriov_totalvfs=32"},
    };

    /** Writes the tree under {@code root} and returns {@code root}. */
    public static Path write(Path root) throws IOException {
        String[] names = {"class", "vendor", "device", "subsystem_vendor", "subsystem_device"};
        for (String[] d : DEVICES) {
            Path dir = root.resolve("sys/bus/pci/devices").resolve(d[0]);
            Files.createDirectories(dir);
            for (int i = 0; i < names.length; i++) {
                if (d[i + 1] != null) {
                    Files.writeString(dir.resolve(names[i]), "0x" + d[i + 1] + "\n");
                }
            }
            for (int i = 6; i < d.length; i++) {
                String[] kv = d[i].split("=", 2);
                Path f = dir.resolve(kv[0]);
                Files.createDirectories(f.getParent());
                Files.writeString(f, kv[1] + "\n");
            }
        }
        return root;
    }
}
