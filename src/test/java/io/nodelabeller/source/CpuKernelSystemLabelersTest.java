package io.nodelabeller.source;

import io.nodelabeller.source.cpu.CpuLabeler;
import io.nodelabeller.source.kernel.KernelLabeler;
import io.nodelabeller.source.system.SystemLabeler;
import io.nodelabeller.source.cpu.CpuConfig;
import io.nodelabeller.source.kernel.KernelConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CpuKernelSystemLabelersTest {

    private static final String P = "feature.node.kubernetes.io/";

    private static Map<String, String> map(List<Label> labels) {
        Map<String, String> out = new TreeMap<>();
        labels.forEach(l -> out.put(l.key(), l.value()));
        return out;
    }

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
                Map.entry(P + "cpu-cpuid.AVX2", "true"),
                Map.entry(P + "cpu-cpuid.AESNI", "true"),
                Map.entry(P + "cpu-cpuid.X86_64_V3", "true"),
                Map.entry(P + "cpu-model.vendor_id", "Intel"),
                Map.entry(P + "cpu-model.family", "6"),
                Map.entry(P + "cpu-model.id", "143"),
                Map.entry(P + "cpu-hardware_multithreading", "true"),
                Map.entry(P + "cpu-pstate.status", "active"),
                Map.entry(P + "cpu-pstate.turbo", "true"),
                Map.entry(P + "cpu-cstate.enabled", "true"),
                Map.entry(P + "cpu-security.sgx.enabled", "true"),
                Map.entry(P + "cpu-security.tdx.enabled", "true")),
                map(new CpuLabeler(CpuConfig.DEFAULT).labels(cpu())));
    }

    @Test
    void whitelistWinsOverBlacklist() {
        CpuLabeler both = new CpuLabeler(new CpuConfig(List.of("AVX2", "SSE2"), List.of("SSE2", "AVX2")));
        assertEquals(List.of(P + "cpu-cpuid.AVX2", P + "cpu-cpuid.SSE2"), map(both.labels(cpu())).keySet().stream()
                .filter(k -> k.contains("cpuid")).toList());
        CpuLabeler blackOnly = new CpuLabeler(new CpuConfig(List.of("AVX2"), List.of()));
        assertEquals(List.of(P + "cpu-cpuid.AESNI", P + "cpu-cpuid.SSE2", P + "cpu-cpuid.X86_64_V3"),
                map(blackOnly.labels(cpu())).keySet().stream().filter(k -> k.contains("cpuid")).toList());
    }

    @Test
    void kernelConfigOptsAndSelinux() {
        Features f = Features.builder("kernel")
                .attribute("config", "NO_HZ", "y").attribute("config", "PREEMPT", "m")
                .attribute("config", "HZ", "250").attribute("config", "NO_HZ_FULL", "n")
                .attribute("selinux", "enabled", "true").attribute("kvm", "enabled", "true")
                .flags("loadedmodule", List.of("nvidia"))
                .build();
        KernelLabeler l = new KernelLabeler(new KernelConfig("", List.of("NO_HZ", "PREEMPT", "HZ", "NO_HZ_FULL", "MISSING")));
        assertEquals(Map.of(P + "kernel-config.NO_HZ", "true", P + "kernel-config.PREEMPT", "true",
                P + "kernel-config.HZ", "250", P + "kernel-config.NO_HZ_FULL", "n",
                P + "kernel-selinux.enabled", "true"), map(l.labels(f)));
        Features off = Features.builder("kernel").attribute("selinux", "enabled", "false").build();
        assertEquals(Map.of(), map(new KernelLabeler(KernelConfig.DEFAULT).labels(off)));
    }

    @Test
    void systemOsRelease() {
        Features f = Features.builder("system")
                .attribute("osrelease", "ID", "rhel").attribute("osrelease", "VERSION_ID", "9.4")
                .attribute("osrelease", "VERSION_ID.major", "9").attribute("osrelease", "VERSION_ID.minor", "4")
                .attribute("osrelease", "NAME", "Red Hat Enterprise Linux")
                .attribute("dmiid", "product_name", "X").attribute("name", "nodename", "n1")
                .build();
        assertEquals(Map.of(P + "system-os_release.ID", "rhel", P + "system-os_release.VERSION_ID", "9.4",
                P + "system-os_release.VERSION_ID.major", "9", P + "system-os_release.VERSION_ID.minor", "4"),
                map(new SystemLabeler().labels(f)));
    }
}
