package io.nodelabeller.source.cpu;

import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.yaml.Checks;
import io.nodelabeller.config.yaml.YamlNode;
import java.util.List;

/** {@code sources.cpu.cpuid:} as in NFD: a non-empty whitelist takes precedence over the blacklist. */
public record CpuConfig(List<String> attributeBlacklist, List<String> attributeWhitelist) {

    public static final CpuConfig DEFAULT = new CpuConfig(List.of("AVX10", "BMI1", "BMI2", "CLMUL", "CMOV", "CX16",
            "ERMS", "F16C", "HTT", "LZCNT", "MMX", "MMXEXT", "NX", "POPCNT", "RDRAND", "RDSEED", "RDTSCP", "SGX",
            "SGXLC", "SSE", "SSE2", "SSE3", "SSE4", "SSE42", "SSSE3", "TDX_GUEST"), List.of());

    /** {@code sources.cpu}, for the config loader. */
    public static final SourceSection<CpuConfig> SECTION = new SourceSection<>("cpu", DEFAULT, CpuConfig::read);

    static CpuConfig read(YamlNode n) {
        n.object("cpuid");
        YamlNode cpuid = n.child("cpuid");
        cpuid.object("attributeBlacklist", "attributeWhitelist");
        java.util.regex.Pattern name = java.util.regex.Pattern.compile("[A-Za-z0-9_.]+");
        return new CpuConfig(
                Checks.matchingOrWarn(cpuid.child("attributeBlacklist"), DEFAULT.attributeBlacklist(), name, "a CPUID flag name"),
                Checks.matchingOrWarn(cpuid.child("attributeWhitelist"), DEFAULT.attributeWhitelist(), name, "a CPUID flag name"));
    }
}
