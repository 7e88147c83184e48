package io.nodelabeller.nvml;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import io.nodelabeller.testing.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The JNA structs have the sizes of NVIDIA's {@code nvml.h} on x86-64 and the same field offsets as gcc gives the C structs. */
class NvmlStructsTest {

    @TempDir
    Path tmp;

    private static final Map<String, NvmlStructs.Base> STRUCTS = Map.of(
            "nvmlPciInfo_t", new NvmlStructs.PciInfo(),
            "nvmlMemory_t", new NvmlStructs.Memory(),
            "nvmlDeviceAttributes_t", new NvmlStructs.DeviceAttributes(),
            "nvmlGpuInstanceProfileInfo_t", new NvmlStructs.GpuInstanceProfileInfo(),
            "nvmlGpuFabricInfo_t", new NvmlStructs.GpuFabricInfo());

    @Test
    void sizesAreTheX8664Sizes() {
        assertEquals(68, new NvmlStructs.PciInfo().size());
        assertEquals(24, new NvmlStructs.Memory().size());
        assertEquals(40, new NvmlStructs.DeviceAttributes().size());
        assertEquals(48, new NvmlStructs.GpuInstanceProfileInfo().size());
        assertEquals(28, new NvmlStructs.GpuFabricInfo().size());
    }

    @Test
    void pciInfoOffsetsAreTheHeaderOnes() {
        NvmlStructs.PciInfo p = new NvmlStructs.PciInfo();
        assertEquals(List.of(0, 16, 20, 24, 28, 32, 36), p.fields().stream().map(p::offsetOf).toList());
        NvmlStructs.DeviceAttributes a = new NvmlStructs.DeviceAttributes();
        assertEquals(32, a.offsetOf("memorySizeMB"));
        assertEquals(40, new NvmlStructs.GpuInstanceProfileInfo().offsetOf("memorySizeMB"));
    }

    /** Every size and every field offset equals what gcc computed for the fake library's C structs. */
    @Test
    void layoutsMatchGcc() {
        Path lib = FakeNvml.nvml().install(tmp);
        NativeLibrary n = NativeLibrary.getInstance(lib.toString());
        try {
            Function sizeOf = n.getFunction("fakeNvmlSizeof");
            Function offsetOf = n.getFunction("fakeNvmlOffsetof");
            STRUCTS.forEach((type, struct) -> {
                assertEquals(sizeOf.invokeInt(new Object[] {type}), struct.size(), type);
                for (String field : struct.fields()) {
                    int gcc = offsetOf.invokeInt(new Object[] {type, field});
                    assertEquals(gcc, struct.offsetOf(field), type + "." + field);
                }
            });
        } finally {
            n.close();
        }
    }
}
