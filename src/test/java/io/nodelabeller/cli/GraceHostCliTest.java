package io.nodelabeller.cli;

import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code print} on the NVIDIA GH200 (Grace, Neoverse V2, aarch64) host tree (hosts/grace-gh200/PROVENANCE.md):
 * NFD v0.19's arm64 cpu labels, no x86-only ones, and everything else as on x86-64.
 */
class GraceHostCliTest {

    private static final String NFD = "feature.node.kubernetes.io/";

    @TempDir
    Path tmp;

    private static Map<String, String> print(String... extra) {
        String[] args = new String[extra.length + 4];
        args[0] = "print";
        args[1] = "--no-timestamp";
        args[2] = "--host-root";
        args[3] = Hosts.root("grace-gh200").toString();
        System.arraycopy(extra, 0, args, 4, extra.length);
        Cli.Result r = Cli.run(args);
        assertEquals(0, r.code(), r.err());
        return r.labels();
    }

    @Test
    void cpuLabelsAreNfdsArm64Labels() {
        Map<String, String> labels = print("--sources", "cpu");
        // NFD (source/cpu/cpuid_linux_arm64.go) names each hwcap bit it knows; this Grace's Features line has 46
        // of them and nothing NFD does not know
        Set<String> cpuid = new TreeSet<>();
        labels.forEach((k, v) -> {
            if (k.startsWith(NFD + "cpu-cpuid.")) {
                cpuid.add(k.substring((NFD + "cpu-cpuid.").length()));
                assertEquals("true", v);
            }
        });
        assertEquals(new TreeSet<>(Set.of("FP", "ASIMD", "EVTSTRM", "AES", "PMULL", "SHA1", "SHA2", "CRC32", "ATOMICS",
                "FPHP", "ASIMDHP", "CPUID", "ASIMDRDM", "JSCVT", "FCMA", "LRCPC", "DCPOP", "SHA3", "SM3", "SM4", "ASIMDDP",
                "SHA512", "SVE", "ASIMDFHM", "DIT", "USCAT", "ILRCPC", "FLAGM", "SB", "PACA", "PACG", "DCPODP", "SVE2",
                "SVEAES", "SVEPMULL", "SVEBITPERM", "SVESHA3", "SVESM4", "FLAGM2", "FRINT", "SVEI8MM", "SVEBF16", "I8MM",
                "BF16", "DGH", "BTI")), cpuid);
        // klauspost/cpuid on MIDR_EL1 0x410fd4f0: implementer 0x41 ARM, family 0x0f, id 0xd4f0; no hypervisor on arm64
        assertEquals("ARM", labels.get(NFD + "cpu-model.vendor_id"));
        assertEquals("15", labels.get(NFD + "cpu-model.family"));
        assertEquals("54512", labels.get(NFD + "cpu-model.id"));
        assertEquals("none", labels.get(NFD + "cpu-model.hypervisor"));
        assertEquals("false", labels.get(NFD + "cpu-hardware_multithreading"), "Neoverse V2 has no SMT");
        // NFD's P-state, C-state, RDT, security and SST parts exist on x86-64 only
        labels.keySet().forEach(k -> assertTrue(!k.contains("cpu-pstate") && !k.contains("cpu-cstate")
                && !k.contains("cpu-rdt") && !k.contains("cpu-security") && !k.contains("cpu-power"), k));
        assertEquals(46 + 5, labels.size(), labels.toString());
    }

    @Test
    void theRestIsAsOnX86AndTheGpuIsFoundThroughNvml() throws Exception {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        Path lib = FakeNvml.nvml().driver("570.124.06").cuda(12080)
                .gpu(FakeNvml.gpu("NVIDIA GH200 480GB").memoryMiB(97871).compute(9, 0)
                        .pciDeviceId(0x234210DE, 0x16EB10DE).busId("00000009:01:00.0"))
                .install(tmp.resolve("lib"));
        Map<String, String> labels = print("--nvml-library", lib.toString());
        assertEquals("6.8.0-1013-nvidia-64k", labels.get(NFD + "kernel-version.full"));
        assertEquals("22.04", labels.get(NFD + "system-os_release.VERSION_ID"));
        assertEquals("true", labels.get(NFD + "pci-0302_10de.present"));
        assertEquals("true", labels.get(NFD + "memory-numa"), "node1 is the GPU's memory");
        assertEquals("true", labels.get("nvidia.com/gpu.present"));
        assertEquals("NVIDIA-GH200-480GB", labels.get("nvidia.com/gpu.product"));
        assertEquals("1", labels.get("nvidia.com/gpu.count"));
        assertEquals("hopper", labels.get("nvidia.com/gpu.family"));
        assertEquals("ARS-111GL-NHR", labels.get("nvidia.com/gpu.machine"));
        assertEquals("570", labels.get("nvidia.com/cuda.driver-version.major"));
        assertEquals("12", labels.get("nvidia.com/cuda.runtime-version.major"));
    }
}
