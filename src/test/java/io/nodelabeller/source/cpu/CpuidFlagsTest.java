package io.nodelabeller.source.cpu;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuidFlagsTest {

    /** Real flag lines: Azure D2s v3 (Xeon E5-2673 v4, Broadwell), EPYC 7742 (Rome), EPYC family 25 VM (Zen 3/4). */
    static final String BROADWELL = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology cpuid pni pclmulqdq vmx ssse3 fma cx16 pcid sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch invpcid_single pti tpr_shadow vnmi ept vpid fsgsbase bmi1 hle avx2 smep bmi2 erms invpcid rtm rdseed adx smap xsaveopt md_clear";
    static final String CORE2 = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx lm constant_tsc arch_perfmon pebs bts rep_good nopl cpuid aperfmperf pni dtes64 monitor ds_cpl vmx est tm2 ssse3 cx16 xtpr pdcm sse4_1 lahf_lm pti tpr_shadow vnmi flexpriority dtherm";

    private static Set<String> kernel(String line) {
        return new TreeSet<>(List.of(line.split(" ")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "broadwell, 3",
            "core2-no-sse42-no-popcnt, 1",
            "nehalem-like, 2",
            "avx512-without-vl, 3",
            "full-avx512, 4",
            "no-syscall-no-sysenter, 0",
    })
    void x64LevelAsKlauspost(String cpu, int level) {
        Set<String> flags = switch (cpu) {
            case "broadwell" -> kernel(BROADWELL);
            case "core2-no-sse42-no-popcnt" -> kernel(CORE2);
            case "nehalem-like" -> kernel(CORE2 + " sse4_2 popcnt");
            case "avx512-without-vl" -> kernel(BROADWELL + " avx512f avx512bw avx512cd avx512dq");
            case "full-avx512" -> kernel(BROADWELL + " avx512f avx512bw avx512cd avx512dq avx512vl");
            default -> kernel(BROADWELL.replace(" sep ", " ").replace(" syscall ", " "));
        };
        Set<String> nfd = CpuidFlags.translate(flags, "Intel", 6, 79, 2);
        for (int i = 1; i <= 4; i++) {
            assertEquals(i <= level, nfd.contains("X86_64_V" + i), cpu + " X86_64_V" + i);
        }
    }

    @Test
    void broadwellGetsNfdNames() {
        Set<String> nfd = CpuidFlags.translate(kernel(BROADWELL), "Intel", 6, 79, 1);
        for (String name : List.of("AESNI", "ADX", "AVX", "AVX2", "FMA3", "VMX", "HYPERVISOR", "SSE42", "SSE4", "SSE3",
                "CLMUL", "LZCNT", "POPCNT", "HLE", "RTM", "MD_CLEAR", "OSXSAVE", "XSAVEOPT", "LAHF", "SYSCALL", "SYSEE")) {
            assertTrue(nfd.contains(name), name + " in " + nfd);
        }
        // kernel-only names never leak through
        for (String name : List.of("avx2", "pni", "ept", "SMEP", "PTI", "SS", "HTT", "AVXSLOW")) {
            assertFalse(nfd.contains(name), name + " in " + nfd);
        }
    }

    @Test
    void conditionsOfKlauspostAreKept() {
        // avx2 without avx (kernel dropped AVX state) is no AVX2; fma without xsave is no FMA3
        Set<String> noAvx = CpuidFlags.translate(kernel("sep fma avx2 bmi2"), "Intel", 6, 85, 1);
        assertFalse(noAvx.contains("AVX2"));
        assertFalse(noAvx.contains("FMA3"));
        assertFalse(noAvx.contains("BMI2"), "BMI2 needs BMI1");
        // SVM sub-features only with SVM; SEV only on AMD
        Set<String> noSvm = CpuidFlags.translate(kernel("npt nrip_save sev sme"), "AMD", 23, 49, 2);
        assertFalse(noSvm.contains("SVMNP"));
        assertTrue(noSvm.contains("SEV"));
        Set<String> hygon = CpuidFlags.translate(kernel("svm npt sev sme"), "Hygon", 24, 0, 2);
        assertTrue(hygon.contains("SVMNP"));
        assertFalse(hygon.contains("SEV"), "klauspost reads the SEV leaf on AMD only");
        // IBRS from AMD's bit only
        assertTrue(CpuidFlags.translate(kernel("ibrs"), "AMD", 23, 49, 1).contains("IBRS"));
        assertFalse(CpuidFlags.translate(kernel("ibrs"), "Intel", 6, 85, 1).contains("IBRS"));
    }

    @ParameterizedTest
    @CsvSource({
            "Intel, 6, 45, 2, true, true",   // Sandy Bridge with SMT: slow AVX, HTT
            "Intel, 6, 85, 1, false, false", // Skylake-SP, SMT off
            "AMD, 23, 1, 2, true, true",     // Zen 1
            "AMD, 23, 49, 2, false, true",   // Zen 2 (EPYC 7742)
            "VIA, 6, 15, 2, false, false",   // HTT only on Intel and AMD
    })
    void derivedFlags(String vendor, int family, int model, int threads, boolean avxSlow, boolean htt) {
        Set<String> nfd = CpuidFlags.translate(kernel("sep ht xsave avx sse"), vendor, family, model, threads);
        assertEquals(avxSlow, nfd.contains("AVXSLOW"));
        assertEquals(htt, nfd.contains("HTT"));
        assertTrue(nfd.contains("FXSROPT"), "klauspost sets FXSROPT from the SSE bit");
    }

    @Test
    void tableHasNoDuplicateRowsAndOnlyUpperCaseNames() {
        Set<String> seen = new HashSet<>();
        for (CpuidFlags.Mapping m : CpuidFlags.TABLE) {
            assertTrue(seen.add(m.kernel() + "->" + m.nfd()), "duplicate " + m);
            assertTrue(m.nfd().matches("[A-Z0-9_]+"), m.nfd());
            assertTrue(m.kernel().matches("[a-z0-9_]+"), m.kernel());
        }
    }

    @Test
    void unknownKernelFlagsAreIgnored() {
        assertEquals(Set.of(), CpuidFlags.translate(kernel("f@o AVX512F ..weird.. x"), null, -1, -1, -1));
    }
}
