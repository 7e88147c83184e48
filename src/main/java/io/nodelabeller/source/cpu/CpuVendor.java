package io.nodelabeller.source.cpu;

import java.util.Map;

/**
 * NFD's {@code cpu-model.vendor_id} value: the CPUID vendor string (cpuinfo's {@code vendor_id}) turned into
 * klauspost/cpuid's vendor name, as NFD prints it.
 */
final class CpuVendor {

    /** CPUID vendor string → klauspost's vendor name. */
    static final Map<String, String> NAMES = Map.ofEntries(
            Map.entry("GenuineIntel", "Intel"),
            Map.entry("AuthenticAMD", "AMD"),
            Map.entry("AMDisbetter!", "AMD"),
            Map.entry("HygonGenuine", "Hygon"),
            Map.entry("CentaurHauls", "VIA"),
            Map.entry("VIA VIA VIA", "VIA"),
            Map.entry("TransmetaCPU", "Transmeta"),
            Map.entry("GenuineTMx86", "Transmeta"),
            Map.entry("Geode by NSC", "NSC"),
            Map.entry("Vortex86 SoC", "SiS"),
            Map.entry("SiS SiS SiS", "SiS"),
            Map.entry("RiseRiseRise", "SiS"),
            Map.entry("Genuine  RDC", "RDC"));

    /** What klauspost calls a vendor string it does not know. */
    static final String UNKNOWN = "VendorUnknown";

    private CpuVendor() {
    }

    /** klauspost's name for CPUID vendor string {@code raw} (already trimmed by cpuinfo parsing). */
    static String name(String raw) {
        return NAMES.getOrDefault(raw, UNKNOWN);
    }
}
