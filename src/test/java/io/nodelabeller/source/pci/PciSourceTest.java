package io.nodelabeller.source.pci;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.AbsentHardware;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.NfdPciRootfs1;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PciSourceTest {

    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    private Features discover(HostFs host) throws Exception {
        return new PciSource().discover(host, warnings::add);
    }

    private static List<Instance> withClass(Features f, String cls) {
        return f.instances("pci.device").stream().filter(i -> cls.equals(i.get("class"))).toList();
    }

    @Test
    void gpuServerGpusKeepNfdAttributeNames() throws Exception {
        Features f = discover(Hosts.fs("gpu-server"));
        List<Instance> gpus = withClass(f, "0302");
        assertEquals(8, gpus.size());
        assertEquals(Map.of("class", "0302", "vendor", "10de", "device", "20b2", "subsystem_vendor", "10de",
                "subsystem_device", "1463", "sriov_totalvfs", "20", "iommu_group/type", "identity"), gpus.get(0).attributes());
        assertEquals(6, withClass(f, "0680").size());
        assertEquals(List.of("2000"), withClass(f, "0300").stream().map(i -> i.get("device")).toList());
        assertEquals(List.of(), warnings);
    }

    @Test
    void originsNameTheDeviceDirectories() throws Exception {
        HostFs host = Hosts.fs("gpu-server");
        Features f = discover(host);
        assertEquals(host.path("/sys/bus/pci/devices").toString(), f.origin("pci.device"));
        int n = f.instances("pci.device").size();
        for (int i = 0; i < n; i++) {
            Path dir = Path.of(f.instanceOrigin("pci.device", i));
            String cls = Files.readString(dir.resolve("class")).trim().substring(2, 6);
            assertEquals(cls, f.instances("pci.device").get(i).get("class"), dir.toString());
        }
    }

    @Test
    void aValueSharedByDevicesIsHeldOnce() throws Exception {
        // the 8 GPUs of the gpu-server: one vendor, device, subsystem and class between them
        List<Instance> gpus = withClass(discover(Hosts.fs("gpu-server")), "0302");
        for (String name : List.of("class", "vendor", "device", "subsystem_vendor", "iommu_group/type")) {
            for (Instance gpu : gpus) {
                assertSame(gpus.get(0).get(name), gpu.get(name), name);
            }
        }
        assertEquals(gpus.get(0).get("vendor"), gpus.get(0).get("subsystem_vendor"));
        assertSame(gpus.get(0).get("vendor"), gpus.get(0).get("subsystem_vendor"), "10de, once for both names");
    }

    @Test
    void cloudVmRealFilesAreNormalised() throws Exception {
        Features f = discover(Hosts.fs("cloud-vm"));
        assertEquals(6, f.instances("pci.device").size());
        assertEquals(List.of("0600", "ffff", "0180", "0200", "ffff", "ffff"),
                f.instances("pci.device").stream().map(i -> i.get("class")).toList());
        assertEquals(List.of("1041"), withClass(f, "0200").stream().map(i -> i.get("device")).toList());
        assertTrue(f.instances("pci.device").stream().noneMatch(i -> i.has("sriov_totalvfs")));
    }

    @Test
    void valuesAreTrimmedLowerCasedAndStrippedOf0x() throws Exception {
        Path dir = tmp.resolve("sys/bus/pci/devices/0000:00:02.0");
        Files.createDirectories(dir.resolve("iommu_group"));
        Files.writeString(dir.resolve("class"), " 0X0302AB\r\n");
        Files.writeString(dir.resolve("vendor"), "0x10DE");
        Files.writeString(dir.resolve("device"), "\t0x2330\n");
        Files.writeString(dir.resolve("subsystem_vendor"), "10de\n");
        Files.writeString(dir.resolve("subsystem_device"), "0x16C1\n");
        Files.writeString(dir.resolve("sriov_totalvfs"), "0\n");
        Files.writeString(dir.resolve("iommu_group/type"), "DMA-FQ\n");
        Features f = discover(new HostFs(tmp));
        assertEquals(Map.of("class", "0302", "vendor", "10de", "device", "2330", "subsystem_vendor", "10de",
                "subsystem_device", "16c1", "sriov_totalvfs", "0", "iommu_group/type", "DMA-FQ"),
                f.instances("pci.device").get(0).attributes());
    }

    @Test
    void nfdRootfs1SkipsTheDeviceWithoutVendor() throws Exception {
        Features f = discover(new HostFs(NfdPciRootfs1.write(tmp)));
        assertEquals(10, f.instances("pci.device").size());
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("0000:00:1f.2") && warnings.get(0).contains("vendor"), warnings.get(0));
        Instance qat = withClass(f, "0b40").get(0);
        assertEquals("16", qat.get("sriov_totalvfs"));
        assertEquals("identity", qat.get("iommu_group/type"));
        assertEquals("1:0", qat.get("iommu/intel-iommu/version"));
    }

    @Test
    void hostileDevicesAreSkippedOneByOneWithAWarningEach() throws Exception {
        Features f = discover(Hosts.fs("hostile"));
        assertEquals(List.of("0600", "0300", "0b40"), f.instances("pci.device").stream().map(i -> i.get("class")).toList());
        assertEquals("10de", withClass(f, "0300").get(0).get("vendor"));
        assertEquals("many", withClass(f, "0b40").get(0).get("sriov_totalvfs"));
        List<String> skipped = List.of("01.0", "02.0", "03.0", "04.0", "06.0", "08.0", "09.0", "0a.0", "0b.0");
        assertEquals(skipped.size(), warnings.size(), warnings.toString());
        for (int i = 0; i < skipped.size(); i++) {
            assertTrue(warnings.get(i).contains("0000:00:" + skipped.get(i)), warnings.get(i));
        }
        assertTrue(warnings.stream().allMatch(w -> w.chars().noneMatch(Character::isISOControl)), warnings.toString());
    }

    /**
     * Every device there and none readable (the hostile tree's readable ones taken away: an overlay or permission
     * problem, not a node without PCI) fails the source, so its labels are kept; one readable device is enough to
     * report what was read.
     */
    @Test
    void whenNoDeviceIsReadableTheSourceFails() throws Exception {
        Path root = Hosts.copy("hostile", tmp.resolve("h"));
        Path devices = root.resolve("sys/bus/pci/devices");
        for (String readable : List.of("00.0", "05.0", "07.0")) {
            Files.delete(devices.resolve("0000:00:" + readable).resolve("vendor"));
        }
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> new PciSource().discover(new HostFs(root), warnings::add));
        assertTrue(e.getMessage().contains("none of the 12 PCI devices") && e.getMessage().contains(devices.toString()),
                e.getMessage());
        Files.writeString(devices.resolve("0000:00:05.0/vendor"), "0x10de\n");
        assertEquals(1, new PciSource().discover(new HostFs(root), w -> { }).instances("pci.device").size());
    }

    /** No PCI bus (an Arm VM with virtio-mmio devices) is no devices; an unlistable one or no sysfs fails the source. */
    @Test
    void noPciBusIsNoDevicesUnlessSysfsIsNotVisibleOrTheBusCannotBeListed() throws Exception {
        AbsentHardware.check(new PciSource(), PciSource.DEVICES, tmp);
    }

    /** What counts as an id after trimming, lower-casing and dropping 0x: 1 to 8 ASCII hex digits, nothing else. */
    @Test
    void anIdIsOneToEightLowerCaseHexDigits() {
        for (String id : List.of("0", "10de", "030200", "ffffffff")) {
            assertTrue(PciSource.isHexId(id), id);
        }
        for (String notId : List.of("", "123456789", "10DE", "0x10de", "10de ", "1g", "zzzz", "\u0661\u0662", "10\u00e9")) {
            assertFalse(PciSource.isHexId(notId), notId);
        }
    }
}
