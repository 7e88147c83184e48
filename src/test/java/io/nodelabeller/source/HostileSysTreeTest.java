package io.nodelabeller.source;

import io.nodelabeller.source.cpu.CpuLabeler;
import io.nodelabeller.source.kernel.KernelLabeler;
import io.nodelabeller.source.system.SystemLabeler;
import io.nodelabeller.source.cpu.CpuConfig;
import io.nodelabeller.source.kernel.KernelConfig;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.cpu.CpuSource;
import io.nodelabeller.source.kernel.KernelSource;
import io.nodelabeller.source.system.SystemSource;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hostile tree through discovery and labelling: no source fails, every label is valid, bad values dropped. */
class HostileSysTreeTest {

    private static final String P = "feature.node.kubernetes.io/";

    @Test
    void hostileTreeYieldsOnlyValidLabels() {
        Snapshot s = new Discovery(Hosts.fs("hostile"), Map.of(CpuSource.NAME, new CpuSource(),
                KernelSource.NAME, new KernelSource(KernelConfig.DEFAULT), SystemSource.NAME, new SystemSource("node with spaces"))).discover();
        assertEquals(Set.of(), s.failedSources(), s.statuses().toString());
        LabelSet labels = new Labelling(Map.of(CpuSource.NAME, new CpuLabeler(CpuConfig.DEFAULT),
                KernelSource.NAME, new KernelLabeler(KernelConfig.DEFAULT), SystemSource.NAME, new SystemLabeler()), LabelValidity.defaults(), null).label(s.features());
        LabelValidity rules = LabelValidity.defaults();
        labels.asMap().forEach((k, v) -> assertNull(rules.problem(k, v), k + "=" + v));
        Map<String, String> m = labels.asMap();

        // the values NFD would refuse are dropped, the rest of each source is still there
        Set<String> dropped = labels.dropped().stream().map(d -> d.label().key()).collect(Collectors.toSet());
        assertEquals(Set.of(P + "system-os_release.ID", P + "system-os_release.VERSION_ID", P + "kernel-config.NO_HZ",
                P + "kernel-config.NO_HZ_IDLE", P + "cpu-pstate.scaling_governor"), dropped);
        assertEquals("15", m.get(P + "system-os_release.VERSION_ID.major"));
        assertEquals("6.7.0-rc3__exp", m.get(P + "kernel-version.full"));
        assertEquals("true", m.get(P + "kernel-config.PREEMPT"), "found in /boot after the non-gzip /proc/config.gz");
        assertEquals("true", m.get(P + "kernel-selinux.enabled"));
        assertEquals("VendorUnknown", m.get(P + "cpu-model.vendor_id"));
        assertFalse(m.containsKey(P + "cpu-model.family"));
        assertEquals("false", m.get(P + "cpu-pstate.turbo"));
        assertEquals("false", m.get(P + "cpu-hardware_multithreading"));
        assertTrue(m.keySet().stream().filter(k -> k.contains("cpu-cpuid.")).allMatch(k -> k.matches(".*cpu-cpuid\\.[A-Z0-9_]+")));
        assertTrue(s.features().flags("kernel.loadedmodule").containsAll(List.of("nvidia", "ib_uverbs")));
        assertTrue(s.statuses().get("kernel").warnings().stream().anyMatch(w -> w.contains("/proc/config.gz")));
        assertTrue(s.statuses().get("cpu").warnings().stream().anyMatch(w -> w.contains("max_cstate")));
    }
}
