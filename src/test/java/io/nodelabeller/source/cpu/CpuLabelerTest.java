package io.nodelabeller.source.cpu;

import io.nodelabeller.feature.Features;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodelabeller.testing.Labels.NFD;
import static io.nodelabeller.testing.Labels.map;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which of the cpu source's features become labels, with NFD's default cpuid blacklist or a configured list. */
class CpuLabelerTest {

    private static Features cpu() {
        return Features.builder("cpu")
                .flags("cpuid", List.of("AVX2", "SSE2", "AESNI", "X86_64_V3"))
                .attribute("model", "vendor_id", "Intel").attribute("model", "family", "6").attribute("model", "id", "143")
                .attribute("topology", "hardware_multithreading", "true").attribute("topology", "socket_count", "2")
                .attribute("pstate", "status", "active").attribute("pstate", "turbo", "true")
                .attribute("cstate", "enabled", "true")
                .attribute("security", "sgx.enabled", "true").attribute("security", "sgx.epc", "12288")
                .attribute("security", "tdx.enabled", "true").attribute("security", "tdx.total_keys", "31")
                .build();
    }

    @Test
    void cpuLabelsWithDefaultBlacklist() {
        assertEquals(Map.ofEntries(
                Map.entry(NFD + "cpu-cpuid.AVX2", "true"),
                Map.entry(NFD + "cpu-cpuid.AESNI", "true"),
                Map.entry(NFD + "cpu-cpuid.X86_64_V3", "true"),
                Map.entry(NFD + "cpu-model.vendor_id", "Intel"),
                Map.entry(NFD + "cpu-model.family", "6"),
                Map.entry(NFD + "cpu-model.id", "143"),
                Map.entry(NFD + "cpu-hardware_multithreading", "true"),
                Map.entry(NFD + "cpu-pstate.status", "active"),
                Map.entry(NFD + "cpu-pstate.turbo", "true"),
                Map.entry(NFD + "cpu-cstate.enabled", "true"),
                Map.entry(NFD + "cpu-security.sgx.enabled", "true"),
                Map.entry(NFD + "cpu-security.tdx.enabled", "true")),
                map(new CpuLabeler(CpuConfig.DEFAULT).labels(cpu())));
    }

    @Test
    void whitelistWinsOverBlacklist() {
        CpuLabeler both = new CpuLabeler(new CpuConfig(List.of("AVX2", "SSE2"), List.of("SSE2", "AVX2")));
        assertEquals(List.of(NFD + "cpu-cpuid.AVX2", NFD + "cpu-cpuid.SSE2"), map(both.labels(cpu())).keySet().stream()
                .filter(k -> k.contains("cpuid")).toList());
        CpuLabeler blackOnly = new CpuLabeler(new CpuConfig(List.of("AVX2"), List.of()));
        assertEquals(List.of(NFD + "cpu-cpuid.AESNI", NFD + "cpu-cpuid.SSE2", NFD + "cpu-cpuid.X86_64_V3"),
                map(blackOnly.labels(cpu())).keySet().stream().filter(k -> k.contains("cpuid")).toList());
    }
}
