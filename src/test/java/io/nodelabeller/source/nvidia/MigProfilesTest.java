package io.nodelabeller.source.nvidia;

import io.nodelabeller.nvml.NvmlDevice.Attributes;
import io.nodelabeller.nvml.NvmlDevice.GpuInstanceProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** MIG profile naming, with worked examples from NVIDIA's MIG user guide profile tables (GPU total and GI memory as NVML gives them). */
class MigProfilesTest {

    private static final long MIB = 1024 * 1024;

    @ParameterizedTest(name = "{0} MiB GPU, {1} MiB instance -> {2} GB")
    @CsvSource({
            // A100-SXM4-40GB, current and older drivers' totals
            "40960, 4864, 5", "40960, 9856, 10", "40960, 19968, 20", "40960, 40192, 40",
            "40536, 4864, 5", "40536, 9856, 10", "40536, 19968, 20", "40536, 40192, 40",
            // H100 80GB HBM3
            "81559, 9984, 10", "81559, 20096, 20", "81559, 40448, 40", "81559, 81152, 80",
            // A100-SXM4-80GB
            "81920, 9728, 10", "81920, 19968, 20", "81920, 40192, 40", "81920, 80896, 80",
            // H200: 16.00 / 32.25 / 69.50 GiB instances; 70.5 rounds half away from zero to 71
            "143771, 16384, 18", "143771, 33024, 35", "143771, 71168, 71",
            // B200: 20.50 / 44.25 GiB
            "183359, 20992, 23", "183359, 45312, 45",
    })
    void memoryGbAsNvidiaRoundsIt(long gpuMiB, long migMiB, long gb) {
        assertEquals(gb, MigProfiles.memoryGb(gpuMiB * MIB, migMiB));
    }

    @ParameterizedTest(name = "{0}g/{1}c -> {4}")
    @CsvSource({
            "1, 1, 4864, '', 1g.5gb",
            "3, 3, 19968, '', 3g.20gb",
            "3, 1, 19968, '', 1c.3g.20gb",
            "7, 2, 40192, '', 2c.7g.40gb",
            "1, 1, 4864, '+me', 1g.5gb+me",
    })
    void names(int g, int c, long memMiB, String suffix, String expected) {
        Attributes a = new Attributes(14, 1, 0, 0, 0, 0, g, c, memMiB);
        assertEquals(expected, MigProfiles.name(a, 40960 * MIB, suffix));
    }

    @Test
    void suffixesByProfileIndex() {
        assertEquals("", MigProfiles.suffix(0));
        assertEquals("", MigProfiles.suffix(4));
        assertEquals("+me", MigProfiles.suffix(7));
        assertEquals("+me", MigProfiles.suffix(8));
        assertEquals("", MigProfiles.suffix(9));
        assertEquals("+gfx", MigProfiles.suffix(0xA));
        assertEquals("-me", MigProfiles.suffix(0xD));
        assertEquals("+me.all", MigProfiles.suffix(0xF));
    }

    // A100-40GB: 1g.5gb (index 0) and 1g.5gb+me (index 7) differ only in their media engines
    private static final GpuInstanceProfile PLAIN = new GpuInstanceProfile(0, 19, 1, 7, 14, 1, 0, 0, 0, 0, 4864);
    private static final GpuInstanceProfile ME = new GpuInstanceProfile(7, 20, 1, 1, 14, 1, 1, 0, 1, 1, 4864);
    private static final GpuInstanceProfile REV2 = new GpuInstanceProfile(9, 15, 1, 4, 14, 1, 1, 0, 0, 0, 9856);
    private static final List<GpuInstanceProfile> SET = List.of(ME, REV2, PLAIN);

    @Test
    void profileFoundBySlicesMemoryAndEngines() {
        assertEquals(0, MigProfiles.profileOf(SET, new Attributes(14, 1, 0, 0, 0, 0, 1, 1, 4864)).orElseThrow().index());
        assertEquals(7, MigProfiles.profileOf(SET, new Attributes(14, 1, 1, 0, 1, 1, 1, 1, 4864)).orElseThrow().index());
        assertEquals(9, MigProfiles.profileOf(SET, new Attributes(14, 1, 1, 0, 0, 0, 1, 1, 9856)).orElseThrow().index());
    }

    @Test
    void engineMismatchFallsBackToThePlainProfileAndNoMatchToNone() {
        assertEquals(0, MigProfiles.profileOf(SET, new Attributes(14, 1, 0, 0, 1, 0, 1, 1, 4864)).orElseThrow().index());
        assertEquals(List.of(), MigProfiles.profileOf(SET, new Attributes(28, 2, 1, 0, 0, 0, 2, 2, 9856)).stream().toList());
    }
}
