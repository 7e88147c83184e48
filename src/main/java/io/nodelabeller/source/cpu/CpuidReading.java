package io.nodelabeller.source.cpu;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What NFD takes from CPUID that {@code /proc/cpuinfo} does not show, as klauspost/cpuid (the library NFD's cpu
 * source uses, cpuid.go) reads it:
 * <ul>
 *   <li>{@code hypervisor}: {@code none} without the hypervisor bit (leaf 1, ecx bit 31); in a VM, leaf 0x40000000's
 *       vendor signature (ebx, ecx, edx up to the first NUL) by klauspost's vendor table, lower-cased as NFD does
 *       ({@code KVMKVMKVM} and {@code Linux KVM Hv} → {@code kvm}, {@code Microsoft Hv} → {@code msvm},
 *       {@code VMwareVMware} → {@code vmware}, {@code XenVMMXenVMM} → {@code xenhvm}, {@code TCGTCGTCGTCG} →
 *       {@code qemu}, …); another signature as it is with every run of characters outside {@code [-A-Za-z0-9_.]}
 *       made one {@code _}, and {@code unknown} when nothing is left (NFD source/cpu/cpu.go, getHypervisorFromCPUID);</li>
 *   <li>flags from leaf 7 sub-leaf 1 edx (AVXVNNIINT8, AVXNECONVERT, AMXTRANSPOSE, AMXTF32, AMXCOMPLEX, AVXVNNIINT16,
 *       PREFETCHI, AVX10, APX_F) and, with AVX10, leaf 0x24 ebx (AVX10_128/256/512 and the AVX10 version, bits 0-7);</li>
 *   <li>the nominal base frequency, leaf 0x16 eax, in MHz (NFD's SST-BF check, source/cpu/power_amd64.go).</li>
 * </ul>
 * A leaf above the processor's highest (leaf 0 eax) is not read, as klauspost does not.
 */
record CpuidReading(String hypervisor, Set<String> flags, int avx10Version, int nominalBaseMhz) {

    /** klauspost's vendor table (cpuid.go, vendorMapping) by signature, with the name NFD lower-cases. */
    static final Map<String, String> VENDORS = Map.ofEntries(
            Map.entry("AMDisbetter!", "AMD"), Map.entry("AuthenticAMD", "AMD"), Map.entry("CentaurHauls", "VIA"),
            Map.entry("GenuineIntel", "Intel"), Map.entry("TransmetaCPU", "Transmeta"), Map.entry("GenuineTMx86", "Transmeta"),
            Map.entry("Geode by NSC", "NSC"), Map.entry("VIA VIA VIA ", "VIA"), Map.entry("KVMKVMKVM", "KVM"),
            Map.entry("Linux KVM Hv", "KVM"), Map.entry("TCGTCGTCGTCG", "QEMU"), Map.entry("Microsoft Hv", "MSVM"),
            Map.entry("VMwareVMware", "VMware"), Map.entry("XenVMMXenVMM", "XenHVM"), Map.entry("bhyve bhyve ", "Bhyve"),
            Map.entry("HygonGenuine", "Hygon"), Map.entry("Vortex86 SoC", "SiS"), Map.entry("SiS SiS SiS ", "SiS"),
            Map.entry("RiseRiseRise", "SiS"), Map.entry("Genuine  RDC", "RDC"), Map.entry("QNXQVMBSQG", "QNX"),
            Map.entry("ACRNACRNACRN", "ACRN"), Map.entry("SRESRESRESRE", "SRE"), Map.entry("Apple VZ", "Apple"));

    /** Leaf 7 sub-leaf 1 edx: bit and klauspost's name (cpuid.go, "CPUID.(EAX=7, ECX=1).EDX"). */
    private static final List<Map.Entry<Integer, String>> LEAF7_1_EDX = List.of(
            Map.entry(4, "AVXVNNIINT8"), Map.entry(5, "AVXNECONVERT"), Map.entry(6, "AMXTRANSPOSE"), Map.entry(7, "AMXTF32"),
            Map.entry(8, "AMXCOMPLEX"), Map.entry(10, "AVXVNNIINT16"), Map.entry(14, "PREFETCHI"), Map.entry(19, "AVX10"),
            Map.entry(21, "APX_F"));

    /** Leaf 0x24 ebx: the vector lengths AVX10 offers (bits 16-18); bits 0-7 are its version. */
    private static final List<Map.Entry<Integer, String>> LEAF24_EBX = List.of(
            Map.entry(16, "AVX10_128"), Map.entry(17, "AVX10_256"), Map.entry(18, "AVX10_512"));

    static CpuidReading read(Cpuid cpu) {
        int max = cpu.query(0, 0)[0];
        boolean vm = max >= 1 && (cpu.query(1, 0)[2] & (1 << 31)) != 0;
        String hypervisor = vm ? hypervisorName(cpu.query(0x40000000, 0)) : "none";
        Set<String> flags = new TreeSet<>();
        int avx10 = 0;
        if (max >= 7) {
            addSet(cpu.query(7, 1)[3], LEAF7_1_EDX, flags);
            if (flags.contains("AVX10") && max >= 0x24) {
                int ebx = cpu.query(0x24, 0)[1];
                addSet(ebx, LEAF24_EBX, flags);
                avx10 = ebx & 0xff;
            }
        }
        int nominal = max >= 0x16 ? cpu.query(0x16, 0)[0] : 0;
        return new CpuidReading(hypervisor, Set.copyOf(flags), avx10, nominal);
    }

    /** The names of the bits of {@code register} that are set. */
    private static void addSet(int register, List<Map.Entry<Integer, String>> bits, Set<String> out) {
        for (Map.Entry<Integer, String> bit : bits) {
            if ((register & (1 << bit.getKey())) != 0) {
                out.add(bit.getValue());
            }
        }
    }

    /** NFD's name for a hypervisor signature (ebx, ecx, edx of leaf 0x40000000). */
    static String hypervisorName(int[] leaf) {
        String raw = signature(leaf[1], leaf[2], leaf[3]);
        String vendor = VENDORS.get(raw);
        if (vendor != null) {
            return vendor.toLowerCase(java.util.Locale.ROOT);
        }
        String clean = raw.replaceAll("[^-A-Za-z0-9_.]+", "_");
        return clean.isEmpty() ? "unknown" : clean;
    }

    /** The registers' bytes in order (little-endian each), up to the first NUL, as klauspost's valAsString. */
    static String signature(int... registers) {
        byte[] bytes = new byte[registers.length * 4];
        int n = 0;
        for (int r : registers) {
            for (int shift = 0; shift < 32; shift += 8) {
                byte b = (byte) (r >>> shift);
                if (b == 0) {
                    return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
                }
                bytes[n++] = b;
            }
        }
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
    }
}
