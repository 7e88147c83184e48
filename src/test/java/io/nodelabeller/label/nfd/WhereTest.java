package io.nodelabeller.label.nfd;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class WhereTest {

    @Test
    void siblingsShareTheirParent() {
        assertEquals("/sys/block/{sda, sdb}/queue/rotational", Where.join(List.of("/sys/block/sda", "/sys/block/sdb"), "/queue/rotational"));
        assertEquals("/sys/block/sda", Where.join(List.of("/sys/block/sda"), ""));
        assertEquals("/a/x, /b/y", Where.join(List.of("/a/x", "/b/y"), ""));
        assertEquals("pci.device[0], pci.device[1]", Where.join(List.of("pci.device[0]", "pci.device[1]"), ""));
        assertEquals("", Where.join(List.of(), ""));
    }
}
