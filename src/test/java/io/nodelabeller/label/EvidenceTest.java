package io.nodelabeller.label;

import io.nodelabeller.feature.Features;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one style of {@code explain}'s facts: a feature's attribute, one instance's attribute, paths joined. */
class EvidenceTest {

    @Test
    void siblingsShareTheirParent() {
        assertEquals("/sys/block/{sda, sdb}/queue/rotational", Evidence.join(List.of("/sys/block/sda", "/sys/block/sdb"), "/queue/rotational"));
        assertEquals("/sys/block/sda", Evidence.join(List.of("/sys/block/sda"), ""));
        assertEquals("/a/x, /b/y", Evidence.join(List.of("/a/x", "/b/y"), ""));
        // per-port paths differ in the middle: the shared start and end once (a DGX's nine ports on one line)
        assertEquals("/host/sys/class/net/{ibp12s0, ibp75s0, enp225s0f0np0}/device/sriov_numvfs",
                Evidence.join(List.of("/host/sys/class/net/ibp12s0/device", "/host/sys/class/net/ibp75s0/device",
                        "/host/sys/class/net/enp225s0f0np0/device"), "/sriov_numvfs"));
        assertEquals("/sys/{a/x, b/x/y}", Evidence.join(List.of("/sys/a/x", "/sys/b/x/y"), ""));
        assertEquals("/a/{b, b/c}", Evidence.join(List.of("/a/b", "/a/b/c"), ""));
        assertEquals("pci.device[0], pci.device[1]", Evidence.join(List.of("pci.device[0]", "pci.device[1]"), ""));
        assertEquals("", Evidence.join(List.of(), ""));
    }

    @Test
    void anAttributeNamesItsFeatureValueAndOrigin() {
        Features f = Features.builder("memory").attribute("swap", "enabled", "true").origin("swap", "/proc/swaps")
                .attribute("numa", "is_numa", "false").build();
        assertEquals("memory.swap.enabled = 'true' from /proc/swaps", Evidence.attribute(f, "memory.swap", "enabled"));
        assertEquals("memory.numa.is_numa = 'false'", Evidence.attribute(f, "memory.numa", "is_numa"));
    }

    @Test
    void anInstanceNamesItsAttributeAndTheFileBelowItsOrigin() {
        Features f = Features.builder("network")
                .instance("device", Map.of("name", "eth0", "sriov_numvfs", "4"), "/sys/class/net/eth0")
                .instance("device", Map.of("name", "eth1", "sriov_numvfs", "2"))
                .build();
        assertEquals("network.device sriov_numvfs = '4' from /sys/class/net/eth0/device/sriov_numvfs",
                Evidence.instance(f, "network.device", 0, "sriov_numvfs", "device/sriov_numvfs"));
        assertEquals("network.device name = 'eth0' from /sys/class/net/eth0", Evidence.instance(f, "network.device", 0, "name", ""));
        assertEquals("network.device[1] sriov_numvfs = '2'", Evidence.instance(f, "network.device", 1, "sriov_numvfs", "device/sriov_numvfs"));
        assertEquals("/sys/class/net/eth0", Evidence.where(f, "network.device", 0));
        assertEquals("network.device[1]", Evidence.where(f, "network.device", 1));
    }
}
