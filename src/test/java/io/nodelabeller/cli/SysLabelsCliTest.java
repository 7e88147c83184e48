package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code print} on the DGX A100 tree shows NFD's cpu, kernel and system labels. */
class SysLabelsCliTest {

    @Test
    void printGpuServer() {
        Cli.Result r = Cli.run("print", "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        for (String expected : List.of(
                "feature.node.kubernetes.io/cpu-cpuid.AVX2=true",
                "feature.node.kubernetes.io/cpu-cpuid.AESNI=true",
                "feature.node.kubernetes.io/cpu-cpuid.FMA3=true",
                "feature.node.kubernetes.io/cpu-cpuid.SVM=true",
                "feature.node.kubernetes.io/cpu-cpuid.X86_64_V3=true",
                "feature.node.kubernetes.io/cpu-model.vendor_id=AMD",
                "feature.node.kubernetes.io/cpu-model.family=23",
                "feature.node.kubernetes.io/cpu-model.id=49",
                "feature.node.kubernetes.io/cpu-hardware_multithreading=true",
                "feature.node.kubernetes.io/cpu-security.sev.enabled=true",
                "feature.node.kubernetes.io/kernel-version.full=5.15.0-91-generic",
                "feature.node.kubernetes.io/kernel-config.NO_HZ=true",
                "feature.node.kubernetes.io/kernel-config.NO_HZ_FULL=true",
                "feature.node.kubernetes.io/system-os_release.ID=ubuntu",
                "feature.node.kubernetes.io/system-os_release.VERSION_ID=22.04",
                "feature.node.kubernetes.io/system-os_release.VERSION_ID.major=22",
                "feature.node.kubernetes.io/system-os_release.VERSION_ID.minor=04")) {
            assertTrue(lines.contains(expected), expected + " in\n" + r.out());
        }
        // default blacklist, no X86_64_V4 on Rome, no label for feature-only facts
        for (String absent : List.of("cpu-cpuid.SSE2=", "cpu-cpuid.X86_64_V4=", "cpu-security.sev.asids=",
                "kernel-config.PREEMPT=", "cpu-pstate.")) {
            assertFalse(r.out().contains(absent), absent + " in\n" + r.out());
        }
    }

    @Test
    void configuredWhitelistAndConfigOpts(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("nfd-worker.conf");
        Files.writeString(cfg, """
                sources:
                  cpu:
                    cpuid:
                      attributeWhitelist: [AVX2, SSE2]
                      attributeBlacklist: [AVX2]
                  kernel:
                    configOpts: [HZ, KVM, PREEMPT_VOLUNTARY]
                """);
        Cli.Result r = Cli.run("print", "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        List<String> cpuid = r.out().lines().filter(l -> l.contains("cpu-cpuid.")).toList();
        assertEquals(List.of("feature.node.kubernetes.io/cpu-cpuid.AVX2=true", "feature.node.kubernetes.io/cpu-cpuid.SSE2=true"),
                cpuid, "the whitelist wins");
        List<String> kconfig = r.out().lines().filter(l -> l.contains("kernel-config.")).toList();
        assertEquals(List.of("feature.node.kubernetes.io/kernel-config.HZ=250", "feature.node.kubernetes.io/kernel-config.KVM=true",
                "feature.node.kubernetes.io/kernel-config.PREEMPT_VOLUNTARY=true"), kconfig);
    }

    @Test
    void explainNamesTheFiles() {
        Cli.Result r = Cli.run("explain", "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("boot/config-5.15.0-91-generic"), r.out());
        assertTrue(r.out().contains("etc/os-release"), r.out());
        assertTrue(r.out().contains("proc/cpuinfo"), r.out());
    }
}
