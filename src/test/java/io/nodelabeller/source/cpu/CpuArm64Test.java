package io.nodelabeller.source.cpu;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * arm64 cpuinfo blocks as the kernel prints them (arch/arm64/kernel/cpuinfo.c: c_show — "Features\t:" with the
 * hwcap names, "CPU implementer\t: 0x%02x", "CPU variant\t: 0x%x", "CPU part\t: 0x%03x", "CPU revision\t: %d").
 */
class CpuArm64Test {

    @TempDir
    Path root;

    private final List<String> warnings = new ArrayList<>();

    private Features discover(String implementer, String part, String features) throws Exception {
        Files.createDirectories(root.resolve("proc"));
        Files.writeString(root.resolve("proc/cpuinfo"), "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: " + features
                + "\nCPU implementer\t: " + implementer + "\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: " + part
                + "\nCPU revision\t: 1\n\n");
        return new CpuSource().discover(new HostFs(root), warnings::add);
    }

    @Test
    void withoutSysfsMidrItIsRebuiltFromCpuinfo() throws Exception {
        // Ampere Altra (Neoverse N1 r3p1): MIDR 0x413fd0c1 — klauspost: family 0x3f, id 0xd0c1
        Features f = discover("0x41", "0xd0c", "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
                + "asimdrdm lrcpc dcpop asimddp ssbs");
        assertEquals(Map.of("vendor_id", "ARM", "family", Integer.toString(0x3f), "id", Integer.toString(0xd0c1),
                "hypervisor", "none"), f.attributes("cpu.model"));
        assertEquals(Set.of("FP", "ASIMD", "EVTSTRM", "AES", "PMULL", "SHA1", "SHA2", "CRC32", "ATOMICS", "FPHP",
                "ASIMDHP", "CPUID", "ASIMDRDM", "LRCPC", "DCPOP", "ASIMDDP", "SSBS"), f.flags("cpu.cpuid"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void hwcapsNfdDoesNotKnowGiveNoFlag() throws Exception {
        // newer kernels print bits NFD's table lacks (cssc, sve2p1, mops, hbc): no label, as in NFD
        Features f = discover("0xc0", "0xac3", "fp asimd cpuid sve2 cssc sve2p1 mops hbc smei16i64");
        assertEquals(Set.of("FP", "ASIMD", "CPUID", "SVE2", "SMEI16I64"), f.flags("cpu.cpuid"));
        assertEquals("Ampere", f.attributes("cpu.model").get("vendor_id"));
    }

    @Test
    void withoutTheCpuidHwcapKlauspostReadsNoMidr() throws Exception {
        Features f = discover("0x41", "0xd4f", "fp asimd");
        assertEquals(Map.of("vendor_id", "VendorUnknown", "family", "0", "id", "0", "hypervisor", "none"),
                f.attributes("cpu.model"));
    }

    @Test
    void sysfsMidrWinsAndAnUnknownImplementerIsVendorUnknown() throws Exception {
        Files.createDirectories(root.resolve("sys/devices/system/cpu/cpu0/regs/identification"));
        Files.writeString(root.resolve("sys/devices/system/cpu/cpu0/regs/identification/midr_el1"), "0x00000000611f0220\n");
        Features f = discover("0x61", "0x022", "fp asimd cpuid");
        assertEquals(Map.of("vendor_id", "VendorUnknown", "family", Integer.toString(0x1f), "id",
                Integer.toString(0x0220), "hypervisor", "none"), f.attributes("cpu.model"));
    }
}
