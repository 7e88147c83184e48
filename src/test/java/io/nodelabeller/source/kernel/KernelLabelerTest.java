package io.nodelabeller.source.kernel;

import io.nodelabeller.feature.Features;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodelabeller.testing.Labels.NFD;
import static io.nodelabeller.testing.Labels.map;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The kernel labels: configured kconfig options (y and m as true) and SELinux only when enabled. */
class KernelLabelerTest {

    @Test
    void kernelConfigOptsAndSelinux() {
        Features f = Features.builder("kernel")
                .attribute("config", "NO_HZ", "y").attribute("config", "PREEMPT", "m")
                .attribute("config", "HZ", "250").attribute("config", "NO_HZ_FULL", "n")
                .attribute("selinux", "enabled", "true").attribute("kvm", "enabled", "true")
                .flags("loadedmodule", List.of("nvidia"))
                .build();
        KernelLabeler l = new KernelLabeler(new KernelConfig("", List.of("NO_HZ", "PREEMPT", "HZ", "NO_HZ_FULL", "MISSING")));
        assertEquals(Map.of(NFD + "kernel-config.NO_HZ", "true", NFD + "kernel-config.PREEMPT", "true",
                NFD + "kernel-config.HZ", "250", NFD + "kernel-config.NO_HZ_FULL", "n",
                NFD + "kernel-selinux.enabled", "true"), map(l.labels(f)));
        Features off = Features.builder("kernel").attribute("selinux", "enabled", "false").build();
        assertEquals(Map.of(), map(new KernelLabeler(KernelConfig.DEFAULT).labels(off)));
    }
}
