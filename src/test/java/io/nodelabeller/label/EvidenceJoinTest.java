package io.nodelabeller.label;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EvidenceJoinTest {

    @Test
    void siblingsShareTheirParent() {
        assertEquals("/sys/block/{sda, sdb}/queue/rotational", Evidence.join(List.of("/sys/block/sda", "/sys/block/sdb"), "/queue/rotational"));
        assertEquals("/sys/block/sda", Evidence.join(List.of("/sys/block/sda"), ""));
        assertEquals("/a/x, /b/y", Evidence.join(List.of("/a/x", "/b/y"), ""));
        assertEquals("pci.device[0], pci.device[1]", Evidence.join(List.of("pci.device[0]", "pci.device[1]"), ""));
        assertEquals("", Evidence.join(List.of(), ""));
    }
}
