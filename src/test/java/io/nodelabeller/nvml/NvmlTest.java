package io.nodelabeller.nvml;

import io.nodelabeller.testing.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real binding against the fake libnvidia-ml.so.1: every call, its struct, and its failures. */
class NvmlTest {

    @TempDir
    Path tmp;

    @Test
    void readsSystemAndOneGpu() throws Exception {
        Path lib = FakeNvml.nvml().driver("550.90.07").cuda(12040)
                .gpu(FakeNvml.h100_80gb().uuid("GPU-10f35015-e921-bfab-2eb8-4e9b6664d5f1").busId("00000000:19:00.0")
                        .fabric("0123456789abcdef0123456789abcdef", 0, 32766, 3).numaNode(1))
                .install(tmp);
        try (Nvml nvml = Nvml.open(lib.toString())) {
            assertEquals(lib.toString(), nvml.library().name());
            assertEquals("550.90.07", nvml.driverVersion());
            assertEquals(12040, nvml.cudaDriverVersion());
            assertEquals(1, nvml.deviceCount());
            NvmlDevice d = nvml.device(0);
            assertEquals("NVIDIA H100 80GB HBM3", d.name());
            assertEquals("GPU-10f35015-e921-bfab-2eb8-4e9b6664d5f1", d.uuid());
            NvmlDevice.Memory m = d.memory();
            assertEquals(81559L * 1024 * 1024, m.total());
            assertEquals(m.total(), m.free() + m.used());
            assertEquals(new NvmlDevice.ComputeCapability(9, 0), d.computeCapability());
            // every field of the 68-byte struct, busId read from offset 36
            assertEquals(new NvmlDevice.PciInfo("0000:19:00.0", 0, 0x19, 0, 0x233010DE, 0x16C110DE, "00000000:19:00.0"),
                    d.pciInfo());
            assertEquals(new NvmlDevice.MigMode(0, 0), d.migMode());
            assertFalse(d.migMode().enabled());
            assertEquals(0, d.maxMigDeviceCount());
            NvmlDevice.FabricInfo f = d.fabricInfo().orElseThrow();
            assertArrayEquals(new byte[] {1, 0x23, 0x45, 0x67, (byte) 0x89, (byte) 0xab, (byte) 0xcd, (byte) 0xef,
                    1, 0x23, 0x45, 0x67, (byte) 0x89, (byte) 0xab, (byte) 0xcd, (byte) 0xef}, f.clusterUuid());
            assertEquals(32766, f.cliqueId());
            assertEquals(3, f.state());
            assertEquals(0, f.status());
            assertEquals(OptionalInt.of(1), d.numaNode());
            NvmlException e = assertThrows(NvmlException.class, d::attributes);
            assertEquals(3, e.code());
            assertTrue(e.isNotSupported());
            assertEquals("nvmlDeviceGetAttributes_v2 failed: 3 (Not Supported)", e.getMessage());
            assertEquals(7, d.gpuInstanceProfiles().size());
        }
        assertEquals(List.of("nvmlInit_v2 0", "nvmlShutdown 0"), FakeNvml.calls(lib));
    }

    @Test
    void migDevicesAndProfiles() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.a100_40gb().migEnabled()
                        .mig(0, FakeNvml.A100_40GB.get("1g.5gb"))
                        .mig(2, FakeNvml.A100_40GB.get("3g.20gb"), 1))
                .install(tmp);
        try (Nvml nvml = Nvml.open(lib.toString())) {
            NvmlDevice gpu = nvml.device(0);
            assertTrue(gpu.migMode().enabled());
            assertEquals(7, gpu.maxMigDeviceCount());
            NvmlDevice mig0 = gpu.migDevice(0).orElseThrow();
            assertEquals(Optional.empty(), gpu.migDevice(1).map(NvmlDevice::handle), "empty slot: NOT_FOUND");
            assertEquals(Optional.empty(), gpu.migDevice(7).map(NvmlDevice::handle), "past the end: INVALID_ARGUMENT");
            NvmlDevice mig2 = gpu.migDevice(2).orElseThrow();
            assertEquals("NVIDIA A100-SXM4-40GB MIG 1g.5gb", mig0.name());
            assertEquals(new NvmlDevice.Attributes(14, 1, 0, 0, 0, 0, 1, 1, 4864), mig0.attributes());
            assertEquals(new NvmlDevice.Attributes(14, 3, 2, 0, 0, 0, 3, 1, 19968), mig2.attributes());
            assertEquals(4864L * 1024 * 1024, mig0.memory().total());
            assertEquals(gpu.handle(), mig2.parent().handle());
            assertEquals(2, mig2.gpuInstanceId());
            assertEquals(0, mig2.computeInstanceId());
            assertEquals(new NvmlDevice.GpuInstanceProfile(7, 20, 1, 1, 14, 1, 1, 0, 1, 1, 4864),
                    gpu.gpuInstanceProfile(7).orElseThrow());
            assertEquals(Optional.empty(), gpu.gpuInstanceProfile(5), "unsupported profile index");
            assertEquals(List.of(0, 1, 2, 3, 4, 7, 9), gpu.gpuInstanceProfiles().stream()
                    .map(NvmlDevice.GpuInstanceProfile::index).toList());
        }
    }

    @Test
    void missingLibraryIsCode12() {
        NvmlException e = assertThrows(NvmlException.class, () -> Nvml.open(tmp.resolve("nope/libnvidia-ml.so.1").toString()));
        assertEquals(12, e.code());
        assertNull(e.call());
        assertEquals(tmp.resolve("nope/libnvidia-ml.so.1") + " not found", e.getMessage());
    }

    @Test
    void aFileThatIsNoLibraryIsCode12() throws Exception {
        Path junk = tmp.resolve("libnvidia-ml.so.1");
        Files.writeString(junk, "not an ELF file");
        NvmlException e = assertThrows(NvmlException.class, () -> Nvml.open(junk.toString()));
        assertEquals(12, e.code());
        assertEquals(junk + " cannot be loaded: " + junk + ": file too short", e.getMessage());
    }

    @Test
    void aLibraryWithAMissingDependencyIsNotCalledMissing() throws Exception {
        Path lib = tmp.resolve("libnvidia-ml.so.1");
        Path src = tmp.resolve("needs.c");
        Files.writeString(src, "int nvmlInit_v2(void) { return 0; }\n");
        Path dep = tmp.resolve("libabsent-dependency.so");
        Files.writeString(tmp.resolve("dep.c"), "int absent(void) { return 0; }\n");
        assumeGcc("gcc", "-shared", "-fPIC", "-o", dep.toString(), tmp.resolve("dep.c").toString());
        assumeGcc("gcc", "-shared", "-fPIC", "-o", lib.toString(), src.toString(), "-L" + tmp, "-Wl,--no-as-needed", "-labsent-dependency");
        Files.delete(dep);
        NvmlException e = assertThrows(NvmlException.class, () -> Nvml.open(lib.toString()));
        assertEquals(lib + " cannot be loaded: libabsent-dependency.so: cannot open shared object file: "
                + "No such file or directory", e.getMessage());
    }

    private static void assumeGcc(String... cmd) throws Exception {
        FakeNvml.built(FakeNvml.Variant.FULL);   // skips (or fails under CI) without gcc, like the fake itself
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
    }

    @Test
    void initFailuresCarryCodeAndNvmlText() {
        for (int code : new int[] {9, 18}) {
            Path dir = tmp.resolve("rc" + code);
            Path lib = FakeNvml.nvml().rc("nvmlInit_v2", code).install(dir);
            NvmlException e = assertThrows(NvmlException.class, () -> Nvml.open(lib.toString()));
            assertEquals(code, e.code());
            assertEquals("nvmlInit_v2", e.call());
            assertEquals(code == 9 ? "nvmlInit_v2 failed: 9 (Driver Not Loaded)"
                    : "nvmlInit_v2 failed: 18 (Driver/library version mismatch)", e.getMessage());
            assertEquals(List.of("nvmlInit_v2 " + code), FakeNvml.calls(lib), "no shutdown after a failed init");
        }
    }

    @Test
    void errorTextComesFromTheLibrary() throws Exception {
        Path lib = FakeNvml.nvml().errorString(15, "GPU has fallen off the bus")
                .gpu(FakeNvml.t4().rc("nvmlDeviceGetHandleByIndex_v2", 15)).install(tmp);
        try (Nvml nvml = Nvml.open(lib.toString())) {
            NvmlException e = assertThrows(NvmlException.class, () -> nvml.device(0));
            assertEquals("nvmlDeviceGetHandleByIndex_v2 failed: 15 (GPU has fallen off the bus)", e.getMessage());
        }
    }

    @Test
    void missingRequiredSymbolIsCode13() {
        Path lib = FakeNvml.nvml().variant(FakeNvml.Variant.NO_COUNT_V2).install(tmp);
        NvmlException e = assertThrows(NvmlException.class, () -> Nvml.open(lib.toString()));
        assertEquals(13, e.code());
        assertEquals(lib + " lacks the symbol nvmlDeviceGetCount_v2", e.getMessage());
        assertEquals(List.of(), FakeNvml.calls(lib), "nvmlInit_v2 is not even called");
    }

    @Test
    void missingOptionalSymbolsAnswerEmpty() throws Exception {
        Path lib = FakeNvml.nvml().variant(FakeNvml.Variant.NO_OPTIONAL)
                .gpu(FakeNvml.h100_80gb().fabric("0123456789abcdef0123456789abcdef", 0, 1, 3).numaNode(0))
                .install(tmp);
        try (Nvml nvml = Nvml.open(lib.toString())) {
            assertFalse(nvml.library().has(io.nodelabeller.nvml.NvmlSymbol.GPU_FABRIC_INFO));
            assertFalse(nvml.library().has(io.nodelabeller.nvml.NvmlSymbol.NUMA_NODE_ID));
            NvmlDevice d = nvml.device(0);
            assertEquals(Optional.empty(), d.fabricInfo().map(NvmlDevice.FabricInfo::cliqueId));
            assertEquals(OptionalInt.empty(), d.numaNode());
            assertEquals("NVIDIA H100 80GB HBM3", d.name());
        }
    }

    @Test
    void notSupportedOptionalCallsAnswerEmptyAndOtherErrorsThrow() throws Exception {
        Path lib = FakeNvml.nvml()
                .gpu(FakeNvml.t4())
                .gpu(FakeNvml.h100_80gb().rc("nvmlDeviceGetNumaNodeId", 999).rc("nvmlDeviceGetMemoryInfo", 3))
                .install(tmp);
        try (Nvml nvml = Nvml.open(lib.toString())) {
            NvmlDevice t4 = nvml.device(0);
            assertEquals(OptionalInt.empty(), t4.numaNode());
            assertTrue(t4.fabricInfo().isEmpty());
            assertEquals(3, assertThrows(NvmlException.class, t4::migMode).code());
            NvmlDevice h100 = nvml.device(1);
            assertEquals(999, assertThrows(NvmlException.class, h100::numaNode).code());
            assertEquals(3, assertThrows(NvmlException.class, h100::memory).code());
        }
    }

    @Test
    void sessionsCanFollowEachOtherAndReReadTheConfiguration() throws Exception {
        FakeNvml first = FakeNvml.nvml().rc("nvmlInit_v2", 9);
        Path lib = first.install(tmp);
        assertThrows(NvmlException.class, () -> Nvml.open(lib.toString()));
        FakeNvml.nvml().gpus(2, FakeNvml.t4()).writeConfig(tmp);
        try (Nvml nvml = Nvml.open(lib.toString())) {
            assertEquals(2, nvml.deviceCount());
        }
        try (Nvml nvml = Nvml.open(lib.toString())) {
            assertEquals("Tesla T4", nvml.device(1).name());
        }
        assertEquals(List.of("nvmlInit_v2 9", "nvmlInit_v2 0", "nvmlShutdown 0", "nvmlInit_v2 0", "nvmlShutdown 0"),
                FakeNvml.calls(lib));
    }
}
