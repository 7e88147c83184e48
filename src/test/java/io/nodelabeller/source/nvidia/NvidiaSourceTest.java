package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.nvml.NvmlException;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.SourceFailure;
import io.nodelabeller.testing.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The nvidia source over the real binding and the fake NVML: every feature of the nvidia source (docs/gpu.md). */
class NvidiaSourceTest {

    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    private Features discover(Path lib) throws Exception {
        return discover(lib.toString(), tmp.resolve("host"));
    }

    private Features discover(String lib, Path hostRoot) throws Exception {
        Files.createDirectories(hostRoot);
        Options options = new Options(hostRoot, lib, null, false, null);
        return new NvidiaSource(options).discover(new HostFs(hostRoot), warnings::add);
    }

    private static Map<String, String> nvml(Features f) {
        return f.attributes("nvidia.nvml");
    }

    private static List<Map<String, String>> gpus(Features f) {
        return f.instances("nvidia.gpu").stream().map(Instance::attributes).toList();
    }

    private static List<Map<String, String>> migs(Features f) {
        return f.instances("nvidia.mig").stream().map(Instance::attributes).toList();
    }

    private static List<String> profiles(Features f) {
        return f.instances("nvidia.mig").stream().map(i -> i.get("profile")).toList();
    }

    @Test
    void oneFullGpu() throws Exception {
        Path lib = FakeNvml.nvml().driver("580.159.04").cuda(13000)
                .gpu(FakeNvml.h100_80gb().uuid("GPU-10f35015-e921-bfab-2eb8-4e9b6664d5f1").busId("00000000:19:00.0")
                        .fabric("a1b2c3d4e5f60718293a4b5c6d7e8f90", 0, 7, 3).numaNode(2))
                .install(tmp.resolve("lib"));
        // product_name as DMI reports it on a DGX A100
        Path dmi = tmp.resolve("host/sys/class/dmi/id/product_name");
        Files.createDirectories(dmi.getParent());
        Files.writeString(dmi, "DGXA100 920-23687-2530-000\n");

        Features f = discover(lib);

        assertEquals(Map.of("status", "ok", "driverVersion", "580.159.04", "cudaDriverVersion", "13000",
                "deviceCount", "1"), nvml(f));
        assertEquals(List.of(Map.ofEntries(
                Map.entry("index", "0"),
                Map.entry("name", "NVIDIA H100 80GB HBM3"),
                Map.entry("uuid", "GPU-10f35015-e921-bfab-2eb8-4e9b6664d5f1"),
                Map.entry("memory.total", "85520809984"),
                Map.entry("compute.major", "9"),
                Map.entry("compute.minor", "0"),
                Map.entry("pci.busId", "00000000:19:00.0"),
                Map.entry("pci.deviceId", "233010de"),
                Map.entry("mig.capable", "true"),
                Map.entry("mig.enabled", "false"),
                Map.entry("fabric.clusterUuid", "a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90"),
                Map.entry("fabric.cliqueId", "7"),
                Map.entry("fabric.state", "3"),
                Map.entry("fabric.status", "0"),
                Map.entry("numaNode", "2"))), gpus(f));
        assertEquals(List.of(), migs(f));
        assertEquals(Map.of("product_name", "DGXA100 920-23687-2530-000"), f.attributes("nvidia.machine"));
        assertEquals(tmp.resolve("host/sys/class/dmi/id/product_name").toString(), f.origin("nvidia.machine"));
        assertTrue(f.origin("nvidia.nvml").contains("nvmlSystemGetDriverVersion"), f.origin("nvidia.nvml"));
        assertTrue(f.origin("nvidia.gpu").contains("nvmlDeviceGetPciInfo_v3"), f.origin("nvidia.gpu"));
        assertTrue(f.origin("nvidia.mig").contains("nvmlDeviceGetAttributes_v2"), f.origin("nvidia.mig"));
        assertEquals(List.of(), warnings);
        assertEquals(List.of("nvmlInit_v2 0", "nvmlShutdown 0"), FakeNvml.calls(lib));
    }

    @Test
    void eightGpusInIndexOrder() throws Exception {
        Path lib = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals("8", nvml(f).get("deviceCount"));
        List<Map<String, String>> gpus = gpus(f);
        assertEquals(8, gpus.size());
        for (int i = 0; i < 8; i++) {
            Map<String, String> g = gpus.get(i);
            assertEquals(Integer.toString(i), g.get("index"));
            assertEquals("NVIDIA A100-SXM4-80GB", g.get("name"));
            assertEquals(Long.toString(81920L * 1024 * 1024), g.get("memory.total"));
            assertEquals("20b210de", g.get("pci.deviceId"));
            assertEquals("true", g.get("mig.capable"));
            assertEquals("false", g.get("mig.enabled"));
            assertFalse(g.containsKey("fabric.clusterUuid"));
            assertFalse(g.containsKey("numaNode"));
        }
        assertEquals(8, gpus.stream().map(g -> g.get("uuid")).distinct().count());
        assertEquals(8, gpus.stream().map(g -> g.get("pci.busId")).distinct().count());
        assertEquals(List.of(), migs(f));
        assertEquals(List.of(), warnings);
    }

    @ParameterizedTest(name = "{0}: {1}.{2}")
    @CsvSource({"Tesla T4, 7, 5", "Tesla V100-SXM2-16GB, 7, 0", "NVIDIA A100-SXM4-40GB, 8, 0", "NVIDIA L4, 8, 9",
            "NVIDIA H200, 9, 0", "NVIDIA B200, 10, 0", "NVIDIA RTX PRO 6000 Blackwell Server Edition, 12, 0"})
    void computeCapabilities(String name, int major, int minor) throws Exception {
        Path lib = FakeNvml.nvml().gpu(FakeNvml.gpu(name).memoryMiB(1024).compute(major, minor)).install(tmp.resolve("lib"));
        Map<String, String> g = gpus(discover(lib)).get(0);
        assertEquals(name, g.get("name"));
        assertEquals(Integer.toString(major), g.get("compute.major"));
        assertEquals(Integer.toString(minor), g.get("compute.minor"));
        assertEquals("false", g.get("mig.capable"));
        assertNull(g.get("mig.enabled"));
    }

    @Test
    void twoPartDriverVersionIsKeptRaw() throws Exception {
        Path lib = FakeNvml.nvml().driver("470.42").cuda(11040).gpu(FakeNvml.t4()).install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals("470.42", nvml(f).get("driverVersion"));
        assertEquals("11040", nvml(f).get("cudaDriverVersion"));
    }

    @Test
    void failingSystemQueriesOmitTheirValueWithAWarning() throws Exception {
        Path lib = FakeNvml.nvml().rc("nvmlSystemGetDriverVersion", 999).rc("nvmlSystemGetCudaDriverVersion", 3)
                .gpu(FakeNvml.t4()).install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals(Map.of("status", "ok", "deviceCount", "1"), nvml(f));
        assertEquals(List.of("driver version: nvmlSystemGetDriverVersion failed: 999 (Unknown Error)"), warnings);
    }

    @Test
    void migSingleProfileLayout() throws Exception {
        FakeNvml.Gpu gpu = FakeNvml.a100_40gb().migEnabled().migAll(FakeNvml.A100_40GB.get("1g.5gb"), 7);
        Path lib = FakeNvml.nvml().gpu(gpu).install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals("true", gpus(f).get(0).get("mig.enabled"));
        assertEquals(List.of("1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb"), profiles(f));
        assertEquals(Map.ofEntries(
                Map.entry("parent", "0"),
                Map.entry("index", "3"),
                Map.entry("name", "NVIDIA A100-SXM4-40GB MIG 1g.5gb"),
                Map.entry("uuid", "MIG-00000003-0000-4000-8000-000000000003"),
                Map.entry("profile", "1g.5gb"),
                Map.entry("memory.total", Long.toString(4864L * 1024 * 1024)),
                Map.entry("attr.multiprocessorCount", "14"),
                Map.entry("attr.sharedCopyEngineCount", "1"),
                Map.entry("attr.sharedDecoderCount", "0"),
                Map.entry("attr.sharedEncoderCount", "0"),
                Map.entry("attr.sharedJpegCount", "0"),
                Map.entry("attr.sharedOfaCount", "0"),
                Map.entry("attr.gpuInstanceSliceCount", "1"),
                Map.entry("attr.computeInstanceSliceCount", "1"),
                Map.entry("attr.memorySizeMB", "4864")), migs(f).get(3));
        assertEquals(List.of(), warnings);
    }

    @Test
    void migMixedProfilesOnA100With40GB() throws Exception {
        FakeNvml.Profiles p = FakeNvml.A100_40GB;
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.a100_40gb().migEnabled()
                        .mig(0, p.get("1g.5gb")).mig(1, p.get("1g.5gb+me")).mig(2, p.get("1g.10gb"))
                        .mig(3, p.get("2g.10gb")).mig(5, p.get("3g.20gb"), 1))
                .gpu(FakeNvml.a100_40gb().migEnabled().mig(0, p.get("7g.40gb")))
                .gpu(FakeNvml.a100_40gb().migEnabled().mig(0, p.get("3g.20gb")).mig(1, p.get("4g.20gb")))
                .install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals(List.of("1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "1c.3g.20gb", "7g.40gb", "3g.20gb", "4g.20gb"),
                profiles(f));
        assertEquals(List.of("0/0", "0/1", "0/2", "0/3", "0/5", "1/0", "2/0", "2/1"),
                migs(f).stream().map(m -> m.get("parent") + "/" + m.get("index")).toList());
        Map<String, String> oneC = migs(f).get(4);
        assertEquals("14", oneC.get("attr.multiprocessorCount"));
        assertEquals("3", oneC.get("attr.gpuInstanceSliceCount"));
        assertEquals("1", oneC.get("attr.computeInstanceSliceCount"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void migProfilesOn80GBGpusWithMediaExtensions() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.h100_80gb().migEnabled()
                        .mig(0, FakeNvml.H100_80GB.get("1g.10gb")).mig(1, FakeNvml.H100_80GB.get("1g.10gb+me"))
                        .mig(2, FakeNvml.H100_80GB.get("1g.20gb")).mig(3, FakeNvml.H100_80GB.get("3g.40gb")))
                .gpu(FakeNvml.a100_80gb().migEnabled()
                        .mig(0, FakeNvml.A100_80GB.get("1g.10gb+me")).mig(1, FakeNvml.A100_80GB.get("2g.20gb"))
                        .mig(2, FakeNvml.A100_80GB.get("7g.80gb"), 2))
                .install(tmp.resolve("lib"));
        assertEquals(List.of("1g.10gb", "1g.10gb+me", "1g.20gb", "3g.40gb", "1g.10gb+me", "2g.20gb", "2c.7g.80gb"),
                profiles(discover(lib)));
        assertEquals(List.of(), warnings);
    }

    @Test
    void migEnabledAndDisabledGpusSideBySide() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.a100_40gb())
                .gpu(FakeNvml.a100_40gb().migEnabled().mig(0, FakeNvml.A100_40GB.get("2g.10gb")))
                .gpu(FakeNvml.t4())
                .install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals(List.of("true/false", "true/true", "false/null"),
                gpus(f).stream().map(g -> g.get("mig.capable") + "/" + g.get("mig.enabled")).toList());
        assertEquals(List.of("1"), migs(f).stream().map(m -> m.get("parent")).toList());
    }

    @Test
    void oneFailingMigDeviceDoesNotHideTheOthers() throws Exception {
        FakeNvml.Profile one = FakeNvml.A100_40GB.get("1g.5gb");
        FakeNvml.MigDevice broken = new FakeNvml.MigDevice("NVIDIA A100-SXM4-40GB MIG 1g.5gb", null, 4864L << 20, 1, 0,
                14, 1, 0, 0, 0, 0, 1, 1, 4864, Map.of()).rc("nvmlDeviceGetAttributes_v2", 999);
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.a100_40gb().migEnabled().mig(0, one).migDevice(1, broken).mig(2, one))
                .install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals(Map.of("parent", "0", "index", "1", "name", "NVIDIA A100-SXM4-40GB MIG 1g.5gb",
                "error", "nvmlDeviceGetAttributes_v2 failed: 999 (Unknown Error)", "errorCode", "999"), migs(f).get(1));
        assertEquals("1g.5gb", migs(f).get(0).get("profile"));
        assertEquals("1g.5gb", migs(f).get(2).get("profile"));
        assertEquals(List.of("GPU 0 MIG device 1: nvmlDeviceGetAttributes_v2 failed: 999 (Unknown Error)"), warnings);
    }

    @Test
    void unknownParentMemoryLeavesTheProfileOutWithAWarning() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.a100_40gb().migEnabled().rc("nvmlDeviceGetMemoryInfo", 3).mig(0, FakeNvml.A100_40GB.get("1g.5gb")))
                .install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertNull(migs(f).get(0).get("profile"));
        assertEquals("4864", migs(f).get(0).get("attr.memorySizeMB"));
        assertEquals(List.of("GPU 0 MIG device 0: no profile name, the GPU's total memory is unknown"), warnings);
    }

    @Test
    void missingLibraryIsUnavailableNotAFailure() throws Exception {
        Path missing = tmp.resolve("nowhere/libnvidia-ml.so.1");
        Features f = discover(missing.toString(), tmp.resolve("host"));
        assertEquals(Map.of("status", "unavailable", "error", missing + " not found", "errorCode", "12"), nvml(f));
        assertTrue(f.instances("nvidia.gpu").isEmpty());
        assertFalse(f.allInstances().containsKey("nvidia.gpu"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void nvmlUnavailableWithAnNvidiaGpuOnThePciBusFailsTheSourceButSaysWhy() throws Exception {
        Path host = tmp.resolve("gpu-host");
        Path dev = Files.createDirectories(host.resolve("sys/bus/pci/devices/0000:07:00.0"));
        Files.writeString(dev.resolve("vendor"), "0x10de\n");
        Files.writeString(dev.resolve("class"), "0x030200\n");
        Path lib = FakeNvml.nvml().rc("nvmlInit_v2", 9).gpu(FakeNvml.a100_40gb()).install(tmp.resolve("lib"));
        SourceFailure e = assertThrows(SourceFailure.class, () -> discover(lib.toString(), host));
        assertEquals("NVML unavailable on a node with an NVIDIA GPU: nvmlInit_v2 failed: 9 (Driver Not Loaded)",
                e.getMessage());
        assertEquals("unavailable", nvml(e.known()).get("status"));
        assertEquals("9", nvml(e.known()).get("errorCode"));

        // an NVIDIA device that is no GPU (an NVSwitch, class 0680) does not count, nor does another vendor's GPU
        Files.writeString(dev.resolve("class"), "0x068000\n");
        Path intel = Files.createDirectories(host.resolve("sys/bus/pci/devices/0000:00:02.0"));
        Files.writeString(intel.resolve("vendor"), "0x8086\n");
        Files.writeString(intel.resolve("class"), "0x030000\n");
        assertEquals("unavailable", nvml(discover(lib.toString(), host)).get("status"));
        // the vendor as the kernel prints it, any case: an NVIDIA VGA controller counts
        Files.writeString(dev.resolve("vendor"), "0x10DE\n");
        Files.writeString(dev.resolve("class"), "0x030000\n");
        assertThrows(SourceFailure.class, () -> discover(lib.toString(), host));
    }

    @ParameterizedTest
    @CsvSource({"9, Driver Not Loaded", "18, Driver/library version mismatch", "999, Unknown Error"})
    void failingInitIsUnavailable(int code, String text) throws Exception {
        Path lib = FakeNvml.nvml().rc("nvmlInit_v2", code).gpu(FakeNvml.t4()).install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals(Map.of("status", "unavailable", "error", "nvmlInit_v2 failed: " + code + " (" + text + ")",
                "errorCode", Integer.toString(code)), nvml(f));
        assertEquals("nvmlInit_v2", f.origin("nvidia.nvml"));
        assertEquals(List.of("nvmlInit_v2 " + code), FakeNvml.calls(lib));
    }

    @Test
    void failingDeviceCountFailsTheSourceAfterShuttingNvmlDown() {
        Path lib = FakeNvml.nvml().rc("nvmlDeviceGetCount_v2", 999).gpu(FakeNvml.t4()).install(tmp.resolve("lib"));
        NvmlException e = assertThrows(NvmlException.class, () -> discover(lib));
        assertEquals("nvmlDeviceGetCount_v2 failed: 999 (Unknown Error)", e.getMessage());
        assertEquals(List.of("nvmlInit_v2 0", "nvmlShutdown 0"), FakeNvml.calls(lib));
    }

    @Test
    void missingRequiredSymbolIsUnavailable() throws Exception {
        Path lib = FakeNvml.nvml().variant(FakeNvml.Variant.NO_COUNT_V2).gpu(FakeNvml.t4()).install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertEquals(Map.of("status", "unavailable", "error", lib + " lacks the symbol nvmlDeviceGetCount_v2",
                "errorCode", "13"), nvml(f));
    }

    @Test
    void missingOptionalSymbolsOmitOnlyTheirValues() throws Exception {
        FakeNvml.Gpu gpu = FakeNvml.h100_80gb().fabric("a1b2c3d4e5f60718293a4b5c6d7e8f90", 0, 7, 3).numaNode(0);
        Path lib = FakeNvml.nvml().variant(FakeNvml.Variant.NO_OPTIONAL).gpu(gpu).install(tmp.resolve("lib"));
        Map<String, String> g = gpus(discover(lib)).get(0);
        assertFalse(g.containsKey("fabric.clusterUuid"));
        assertFalse(g.containsKey("fabric.cliqueId"));
        assertFalse(g.containsKey("numaNode"));
        assertEquals("NVIDIA H100 80GB HBM3", g.get("name"));
        assertEquals("9", g.get("compute.major"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void fabricStatusAndAZeroClusterAreReportedAsNvmlGivesThem() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.h100_80gb().fabric("a1b2c3d4e5f60718293a4b5c6d7e8f90", 999, 7, 3))
                .gpu(FakeNvml.h100_80gb().fabric("00000000000000000000000000000000", 0, 0, 1))
                .install(tmp.resolve("lib"));
        List<String> fabric = gpus(discover(lib)).stream().map(g -> g.get("fabric.clusterUuid") + "/"
                + g.get("fabric.cliqueId") + "/" + g.get("fabric.state") + "/" + g.get("fabric.status")).toList();
        assertEquals(List.of("a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90/7/3/999", "00000000-0000-0000-0000-000000000000/0/1/0"),
                fabric);
    }

    @Test
    void productNameAlsoFromTheDmiDirectoryTheClassLinkPointsTo() throws Exception {
        Path dmi = tmp.resolve("host/sys/devices/virtual/dmi/id/product_name");
        Files.createDirectories(dmi.getParent());
        Files.writeString(dmi, "DGXA100 920-23687-2530-000\n");   // as in hosts/gpu-server (a DGX A100)
        Features f = discover(FakeNvml.nvml().install(tmp.resolve("lib")));
        assertEquals("DGXA100 920-23687-2530-000", f.attribute("nvidia.machine", "product_name"));
        assertEquals(dmi.toString(), f.origin("nvidia.machine"));
    }

    @Test
    void notSupportedMemoryOmitsOnlyMemory() throws Exception {
        Path lib = FakeNvml.nvml().gpu(FakeNvml.t4().rc("nvmlDeviceGetMemoryInfo", 3)).install(tmp.resolve("lib"));
        Map<String, String> g = gpus(discover(lib)).get(0);
        assertFalse(g.containsKey("memory.total"));
        assertEquals("Tesla T4", g.get("name"));
        assertEquals("7", g.get("compute.major"));
        assertEquals(List.of(), warnings, "NOT_SUPPORTED is no problem worth a warning");
    }

    @Test
    void otherFailuresOfOneValueWarn() throws Exception {
        Path lib = FakeNvml.nvml().gpu(FakeNvml.t4().rc("nvmlDeviceGetUUID", 999).rc("nvmlDeviceGetPciInfo_v3", 999))
                .install(tmp.resolve("lib"));
        Map<String, String> g = gpus(discover(lib)).get(0);
        assertFalse(g.containsKey("uuid"));
        assertFalse(g.containsKey("pci.busId"));
        assertEquals("15360", Long.toString(Long.parseLong(g.get("memory.total")) >> 20));
        assertEquals(List.of("GPU 0 UUID: nvmlDeviceGetUUID failed: 999 (Unknown Error)",
                "GPU 0 PCI info: nvmlDeviceGetPciInfo_v3 failed: 999 (Unknown Error)"), warnings);
    }

    @Test
    void aLostGpuDoesNotHideTheOthers() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpus(2, FakeNvml.a100_40gb())
                .gpu(FakeNvml.a100_40gb().rc("nvmlDeviceGetHandleByIndex_v2", 15))
                .gpu(FakeNvml.a100_40gb())
                .install(tmp.resolve("lib"));
        Features f = discover(lib);
        List<Map<String, String>> gpus = gpus(f);
        assertEquals(4, gpus.size());
        assertEquals(Map.of("index", "2", "error", "nvmlDeviceGetHandleByIndex_v2 failed: 15 (GPU is lost)",
                "errorCode", "15"), gpus.get(2));
        for (int i : new int[] {0, 1, 3}) {
            assertEquals("NVIDIA A100-SXM4-40GB", gpus.get(i).get("name"));
            assertNull(gpus.get(i).get("error"));
        }
        assertEquals(List.of("GPU 2: nvmlDeviceGetHandleByIndex_v2 failed: 15 (GPU is lost)"), warnings);
    }

    @Test
    void initIsRetriedAtEveryDiscovery() throws Exception {
        Path dir = tmp.resolve("lib");
        Path lib = FakeNvml.nvml().rc("nvmlInit_v2", 9).install(dir);
        assertEquals("unavailable", nvml(discover(lib)).get("status"));
        FakeNvml.nvml().gpu(FakeNvml.t4()).writeConfig(dir);   // the driver came up
        Features f = discover(lib);
        assertEquals("ok", nvml(f).get("status"));
        assertEquals("Tesla T4", gpus(f).get(0).get("name"));
        assertEquals(List.of("nvmlInit_v2 9", "nvmlInit_v2 0", "nvmlShutdown 0"), FakeNvml.calls(lib));
    }

    @Test
    void noProductNameFileNoMachineFeature() throws Exception {
        Path lib = FakeNvml.nvml().install(tmp.resolve("lib"));
        Features f = discover(lib);
        assertTrue(f.attributes("nvidia.machine").isEmpty());
        assertEquals("0", nvml(f).get("deviceCount"));
        assertTrue(f.allInstances().containsKey("nvidia.gpu"), "zero GPUs is a discovered fact");
    }
}
