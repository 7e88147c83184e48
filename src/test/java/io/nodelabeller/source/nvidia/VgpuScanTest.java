package io.nodelabeller.source.nvidia;

import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * vGPU detection over PCI configuration spaces: the vGPU guest and vGPU host overlays (captures described in
 * src/test/resources/host-overlays/README.md) and spaces changed from them the way real ones differ: read without
 * CAP_SYS_ADMIN, no capability list, a looping chain, malformed records (the shapes of k8s-device-plugin's
 * {@code internal/vgpu/vgpu_test.go} tables).
 */
class VgpuScanTest {

    static final String GUEST_DEVICE = "0000:00:06.0";
    static final String GUEST_CONFIG = "sys/bus/pci/devices/" + GUEST_DEVICE + "/config";

    @TempDir
    Path tmp;

    private Path guest() throws Exception {
        return Hosts.layered("cloud-vm", "vgpu-guest", tmp.resolve("guest"));
    }

    /** The guest, its vGPU's configuration space changed by {@code edit}. */
    private Path guestWith(java.util.function.Consumer<byte[]> edit) throws Exception {
        Path root = guest();
        byte[] b = Files.readAllBytes(root.resolve(GUEST_CONFIG));
        edit.accept(b);
        Files.write(root.resolve(GUEST_CONFIG), b);
        return root;
    }

    private static List<NvidiaFeatures.Vgpu> scan(Path root) throws VgpuScan.ScanException {
        return VgpuScan.scan(new HostFs(root));
    }

    @Test
    void aGuestsVgpuAndItsHostDriver() throws Exception {
        assertEquals(List.of(new NvidiaFeatures.Vgpu(GUEST_DEVICE, "460.16", "r460_00")), scan(guest()));
    }

    @Test
    void aVgpuHostsPhysicalGpusAndSwitchesAreNoVgpus() throws Exception {
        Path host = Hosts.layered("gpu-server", "vgpu-host", tmp.resolve("host"));
        assertEquals(List.of(), scan(host));
    }

    /** Only vendor 10de is read: cloud-vm's virtio devices have no config file, and the scan does not miss it. */
    @Test
    void onlyNvidiaDevicesAreRead() throws Exception {
        assertEquals(List.of(), scan(Hosts.root("cloud-vm")));
    }

    /**
     * Without CAP_SYS_ADMIN the kernel returns the first 64 bytes of a config file (drivers/pci/pci-sysfs.c,
     * {@code pci_read_config}): the scan cannot tell, so it says so instead of answering "no vGPU".
     */
    @Test
    void anUnprivilegedReadIsAnErrorNamingTheCapability() throws Exception {
        Path root = guest();
        Path config = root.resolve(GUEST_CONFIG);
        Files.write(config, Arrays.copyOf(Files.readAllBytes(config), 64)); // what an unprivileged read returns
        VgpuScan.ScanException e = assertThrows(VgpuScan.ScanException.class, () -> scan(root));
        assertTrue(e.getMessage().contains(GUEST_DEVICE) && e.getMessage().contains("64 bytes")
                && e.getMessage().contains("CAP_SYS_ADMIN"), e.getMessage());
    }

    @Test
    void aMissingConfigFileOfAnNvidiaDeviceIsAnErrorNamingIt() throws Exception {
        Path root = guest();
        Files.delete(root.resolve(GUEST_CONFIG));
        VgpuScan.ScanException e = assertThrows(VgpuScan.ScanException.class, () -> scan(root));
        assertTrue(e.getMessage().contains(GUEST_CONFIG) && e.getMessage().contains("no such file"), e.getMessage());
    }

    /** Status bit 0x10 clear: the device declares no capability list, whatever byte 0x34 holds. */
    @Test
    void noCapabilityListNoVgpu() throws Exception {
        assertEquals(List.of(), scan(guestWith(b -> b[0x06] &= ~0x10)));
    }

    /** A chain that points back at itself ends; a broken one (id 0xff) too. */
    @ParameterizedTest
    @CsvSource({"40, 01, 40", "40, ff, 00"})
    void aLoopingOrBrokenChainEnds(String at, String id, String next) throws Exception {
        int pos = Integer.parseInt(at, 16);
        assertEquals(List.of(), scan(guestWith(b -> {
            b[0x34] = (byte) pos;
            b[pos] = (byte) Integer.parseInt(id, 16);
            b[pos + 1] = (byte) Integer.parseInt(next, 16);
        })));
    }

    /** The vendor capability found first counts: a vendor capability not signed VF before the vGPU's hides it. */
    @Test
    void onlyTheFirstVendorCapabilityIsLookedAt() throws Exception {
        assertEquals(List.of(), scan(guestWith(b -> {
            b[0x34] = 0x40;
            System.arraycopy(HexFormat.of().parseHex("09d0080000000000"), 0, b, 0x40, 8);
        })));
    }

    @Test
    void aCapabilityRunningPastTheSpaceIsAnError() throws Exception {
        Path root = guestWith(b -> b[0xd2] = (byte) 0x40); // 0xd0 + 0x40 > 256
        assertThrows(VgpuScan.ScanException.class, () -> scan(root));
    }

    /** Capability bytes (hex) that are signed VF but hold no usable host driver record. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "no record,                        0900055646",
            "record header cut short,          090006564601",
            "record of length 0,               09000756460100",
            "record shorter than its header,   09000756460101",
            "record past the capability,       090007564601ff",
            "driver record header cut short,   090006564600",
            "driver record too short,          09000756460002",
            "driver record past the capability, 09000756460016"})
    void malformedRecordsAreErrors(String what, String hex) {
        byte[] capability = HexFormat.of().parseHex(hex);
        assertThrows(VgpuScan.ScanException.class, () -> VgpuScan.info("dev", capability), what);
    }

    @Test
    void recordsOfOtherTypesAreSkipped() throws Exception {
        byte[] capability = new byte[30];
        System.arraycopy(HexFormat.of().parseHex("09001e5646" + "0103ff" + "0016"), 0, capability, 0, 10);
        System.arraycopy("550.54.16".getBytes(), 0, capability, 10, 9);
        System.arraycopy("r550_40".getBytes(), 0, capability, 20, 7);
        assertEquals(new NvidiaFeatures.Vgpu("dev", "550.54.16", "r550_40"), VgpuScan.info("dev", capability));
    }

    /** Versions of the full 10 bytes have no NUL to trim. */
    @Test
    void fieldsOfTheFullWidthAreKept() throws Exception {
        byte[] capability = new byte[27];
        System.arraycopy(HexFormat.of().parseHex("09001b5646" + "0016"), 0, capability, 0, 7);
        System.arraycopy("535.161.08r535_00_12".getBytes(), 0, capability, 7, 20);
        assertEquals(new NvidiaFeatures.Vgpu("dev", "535.161.08", "r535_00_12"), VgpuScan.info("dev", capability));
    }
}
