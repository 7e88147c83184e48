package io.nodelabeller.cli;

import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * GFD's vGPU labels through {@code print}: the vGPU guest (cloud-vm with a GRID T4 vGPU) and the vGPU host (the DGX
 * A100 with its physical functions' configuration spaces), both from src/test/resources/host-overlays, with the
 * fake NVML answering as each machine's driver would. GFD's {@code internal/lm/vgpu.go}: {@code vgpu.present} is
 * written wherever the scan works, the host driver labels only on a guest; a failing scan gives no vGPU label.
 */
class VgpuLabelsEndToEndTest {

    private static final String ON = "sources:\n  nvidia:\n    vgpu: true\n";

    @TempDir
    Path tmp;

    @BeforeAll
    static void needsFakeLibrary() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
    }

    /** The guest's driver sees its vGPU as a GRID T4-16Q (16 GiB profile) at the bus id of its PCI function. */
    private static FakeNvml guestNvml() {
        return FakeNvml.nvml().driver("460.32.03").cuda(11020).gpu(FakeNvml.gpu("GRID T4-16Q").memoryMiB(16384)
                .compute(7, 5).pciDeviceId(0x1EB810DE, 0x130F10DE).busId("00000000:00:06.0"));
    }

    private Path guest() throws Exception {
        return Hosts.layered("cloud-vm", "vgpu-guest", tmp.resolve("guest"));
    }

    private Path vgpuHost() throws Exception {
        return Hosts.layered("gpu-server", "vgpu-host", tmp.resolve("host"));
    }

    private Cli.Result print(Path host, FakeNvml nvml, String config) throws Exception {
        List<String> args = new ArrayList<>(List.of("print", "--no-timestamp", "--host-root", host.toString(),
                "--nvml-library", nvml == null ? tmp.resolve("none/libnvidia-ml.so.1").toString()
                        : nvml.install(tmp.resolve("lib")).toString()));
        if (config != null) {
            Path file = tmp.resolve("config.yaml");
            Files.writeString(file, config);
            args.addAll(List.of("--config", file.toString()));
        }
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        return r;
    }

    private static Map<String, String> nvidia(Cli.Result r) {
        Map<String, String> out = new TreeMap<>();
        r.out().lines().filter(l -> l.startsWith("nvidia.com/")).forEach(l -> {
            int eq = l.indexOf('=');
            out.put(l.substring("nvidia.com/".length(), eq), l.substring(eq + 1));
        });
        return out;
    }

    /** The warnings of the nvidia source and labeler (cloud-vm's missing /proc/modules warns for the kernel source). */
    private static List<String> nvidiaWarnings(Cli.Result r) {
        return r.err().lines().filter(l -> l.contains(" WARN ") && (l.contains("source nvidia") || l.contains("Nvidia")))
                .toList();
    }

    private static Map<String, String> vgpu(Map<String, String> labels) {
        Map<String, String> out = new TreeMap<>(labels);
        out.keySet().removeIf(k -> !k.startsWith("vgpu."));
        return out;
    }

    @Test
    void aGuestCarriesItsHostsDriverBesideItsGpuLabels() throws Exception {
        Map<String, String> got = nvidia(print(guest(), guestNvml(), ON));
        assertEquals(Map.of("vgpu.present", "true", "vgpu.host-driver-version", "460.16",
                "vgpu.host-driver-branch", "r460_00"), vgpu(got));
        assertEquals("GRID-T4-16Q", got.get("gpu.product"));
        assertEquals("1", got.get("gpu.count"));
        assertEquals("460", got.get("cuda.driver-version.major"), "the guest's own driver, not the host's");
    }

    /** GFD labels vGPUs with or without devices from NVML: a guest whose driver is not loaded still says so. */
    @Test
    void aGuestWithoutNvmlStillCarriesTheVgpuLabels() throws Exception {
        Cli.Result r = print(guest(), null, ON);
        Map<String, String> got = nvidia(r);
        assertEquals("true", got.get("gpu.present"), r.out());
        assertEquals(Map.of("vgpu.present", "true", "vgpu.host-driver-version", "460.16",
                "vgpu.host-driver-branch", "r460_00"), vgpu(got), r.out());
        assertFalse(got.containsKey("gpu.product"), r.out());
    }

    @Test
    void aVgpuHostOrBareMetalNodeSaysFalse() throws Exception {
        Map<String, String> got = nvidia(print(vgpuHost(), FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()), ON));
        assertEquals(Map.of("vgpu.present", "false"), vgpu(got));
        assertEquals("8", got.get("gpu.count"));
    }

    /** GPU-less nodes carry no nvidia.com label, the vGPU scan on or off. */
    @Test
    void aNodeWithoutNvidiaDevicesGetsNoVgpuLabel() throws Exception {
        Cli.Result r = print(Hosts.root("cloud-vm"), null, ON);
        assertEquals(Map.of(), nvidia(r), r.out());
        assertEquals(List.of(), nvidiaWarnings(r));
    }

    /** Off by default: the configuration space is not even read (here it is gone, and nothing complains). */
    @Test
    void offByDefaultNothingIsRead() throws Exception {
        Path host = guest();
        Files.delete(host.resolve("sys/bus/pci/devices/0000:00:06.0/config"));
        Cli.Result r = print(host, guestNvml(), null);
        Map<String, String> got = nvidia(r);
        assertEquals(Map.of(), vgpu(got));
        assertEquals("GRID-T4-16Q", got.get("gpu.product"));
        assertEquals(List.of(), nvidiaWarnings(r));
    }

    /**
     * An agent without CAP_SYS_ADMIN reads 64 bytes of each configuration space (drivers/pci/pci-sysfs.c): no vGPU
     * label (as GFD), one warning that says what is missing, every other label as before.
     */
    @Test
    void anUnprivilegedAgentWarnsAndKeepsItsOtherLabels() throws Exception {
        Path host = guest();
        Path config = host.resolve("sys/bus/pci/devices/0000:00:06.0/config");
        Files.write(config, Arrays.copyOf(Files.readAllBytes(config), 64));
        Cli.Result r = print(host, guestNvml(), ON);
        Map<String, String> got = nvidia(r);
        assertEquals(Map.of(), vgpu(got));
        assertEquals("GRID-T4-16Q", got.get("gpu.product"));
        List<String> warnings = nvidiaWarnings(r);
        assertEquals(1, warnings.size(), r.err());
        assertTrue(warnings.get(0).contains("CAP_SYS_ADMIN") && warnings.get(0).contains("sources.nvidia.vgpu"),
                warnings.get(0));
    }
}
