package io.nodelabeller.source.cpu;

import io.nodelabeller.source.HostFs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * NFD's cpu features on arm64 (NVIDIA Grace, Ampere, Graviton), from the host's files.
 *
 * <p>{@code cpu.cpuid}: NFD reads the kernel's hardware capabilities (AT_HWCAP, AT_HWCAP2) and names the bits it
 * knows (source/cpu/cpuid_linux_arm64.go). The kernel prints the same bits by name in the {@code Features:} line
 * of /proc/cpuinfo (arch/arm64/kernel/cpuinfo.c, hwcap_str), lower case; NFD's name is that name in upper case,
 * for the bits in {@link #NFD_NAMES}. Newer bits NFD does not know (e.g. {@code cssc}, {@code sve2p1}) give no flag.
 *
 * <p>{@code cpu.model}: NFD takes klauspost/cpuid's reading of MIDR_EL1 (detect_arm64.go): vendor from the
 * implementer byte, family = bits 16-23 (variant and architecture), id = bits 0-15 (part number and revision); and
 * only when the kernel offers the {@code cpuid} capability, else VendorUnknown, 0, 0. MIDR_EL1 comes from
 * {@code /sys/devices/system/cpu/cpu0/regs/identification/midr_el1}, or is rebuilt from cpuinfo's
 * {@code CPU implementer/variant/part/revision} with architecture 0xf (every Armv8 and later CPU). klauspost cannot
 * detect a hypervisor on arm64, so NFD always says {@code hypervisor=none} there.
 */
final class CpuArm64 {

    static final String MIDR = "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1";

    /** The hwcap names NFD knows (cpuid_linux_arm64.go: flagNames_arm64 and flag2Names_arm64). */
    static final Set<String> NFD_NAMES = Set.copyOf(List.of(
            "FP", "ASIMD", "EVTSTRM", "AES", "PMULL", "SHA1", "SHA2", "CRC32", "ATOMICS", "FPHP", "ASIMDHP", "CPUID",
            "ASIMDRDM", "JSCVT", "FCMA", "LRCPC", "DCPOP", "SHA3", "SM3", "SM4", "ASIMDDP", "SHA512", "SVE", "ASIMDFHM",
            "DIT", "USCAT", "ILRCPC", "FLAGM", "SSBS", "SB", "PACA", "PACG",
            "DCPODP", "SVE2", "SVEAES", "SVEPMULL", "SVEBITPERM", "SVESHA3", "SVESM4", "FLAGM2", "FRINT", "SVEI8MM",
            "SVEF32MM", "SVEF64MM", "SVEBF16", "I8MM", "BF16", "DGH", "RNG", "BTI", "MTE", "ECV", "AFP", "RPRES", "MTE3",
            "SME", "SMEI16I64", "SMEF64F64", "SMEI8I32", "SMEF16F32", "SMEB16F32", "SMEF32F32", "SMEFA64", "WFXT",
            "EBF16", "SVEEBF16"));

    /** klauspost's vendor names by MIDR implementer (detect_arm64.go). */
    private static final Map<Integer, String> VENDORS = Map.ofEntries(
            Map.entry(0xC0, "Ampere"), Map.entry(0x41, "ARM"), Map.entry(0x42, "Broadcom"), Map.entry(0x43, "Cavium"),
            Map.entry(0x44, "DEC"), Map.entry(0x46, "Fujitsu"), Map.entry(0x49, "Infineon"), Map.entry(0x4D, "Motorola"),
            Map.entry(0x4E, "NVIDIA"), Map.entry(0x50, "AMCC"), Map.entry(0x51, "Qualcomm"), Map.entry(0x56, "Marvell"),
            Map.entry(0x69, "Intel"));

    private CpuArm64() {
    }

    /** An arm64 cpuinfo block: a Features line and a CPU implementer, no x86 flags. */
    static boolean is(CpuInfo info) {
        return info.get("Features") != null && info.get("CPU implementer") != null && info.get("flags") == null;
    }

    /** NFD's cpuid flags for the kernel's {@code Features:} names. */
    static Set<String> cpuid(Set<String> features) {
        Set<String> out = new TreeSet<>();
        for (String f : features) {
            String name = f.toUpperCase(Locale.ROOT);
            if (NFD_NAMES.contains(name)) {
                out.add(name);
            }
        }
        return out;
    }

    /** {@code cpu.model} as NFD gives it on arm64; empty when MIDR_EL1 can be read neither way. */
    static Map<String, String> model(CpuInfo info, HostFs host) {
        Map<String, String> out = new LinkedHashMap<>();
        Optional<Long> midr = info.features().contains("cpuid") ? midr(info, host) : Optional.of(-1L);
        if (midr.isEmpty()) {
            return out;
        }
        long m = midr.get();
        out.put("vendor_id", m < 0 ? CpuVendor.UNKNOWN : VENDORS.getOrDefault((int) ((m >> 24) & 0xff), CpuVendor.UNKNOWN));
        out.put("family", Long.toString(m < 0 ? 0 : (m >> 16) & 0xff));
        out.put("id", Long.toString(m < 0 ? 0 : m & 0xffff));
        out.put("hypervisor", "none");
        return out;
    }

    private static Optional<Long> midr(CpuInfo info, HostFs host) {
        Optional<Long> sysfs = host.readTrimmed(MIDR).flatMap(CpuArm64::hex);
        if (sysfs.isPresent()) {
            return sysfs;
        }
        Optional<Long> implementer = hex(info.get("CPU implementer"));
        Optional<Long> variant = hex(info.get("CPU variant"));
        Optional<Long> part = hex(info.get("CPU part"));
        Optional<Long> revision = hex(info.get("CPU revision"));
        if (implementer.isEmpty() || variant.isEmpty() || part.isEmpty() || revision.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(implementer.get() << 24 | variant.get() << 20 | 0xfL << 16 | part.get() << 4 | revision.get());
    }

    /** "0x41", "0x00000000410fd4f0" or "0" (cpuinfo prints the revision in decimal). */
    private static Optional<Long> hex(String s) {
        if (s == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
