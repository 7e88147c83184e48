package io.nodelabeller.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What docs/development.md says of the fake host trees and the overlays: each says where its files come from. */
class FakeHostTreesTest {

    private static final Path OVERLAYS = Hosts.root("").resolveSibling("host-overlays");

    static List<String> overlays() throws Exception {
        try (Stream<Path> dirs = Files.list(OVERLAYS)) {
            return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList();
        }
    }

    @ParameterizedTest
    @MethodSource("io.nodelabeller.testing.Hosts#all")
    void everyTreeHasItsProvenance(String host) throws Exception {
        try (Stream<Path> files = Files.list(Hosts.root(host))) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString().matches("PROVENANCE.*\\.md")), host);
        }
    }

    /** A section "## name (over `tree`)" per overlay, on a tree that exists, and no section without its overlay. */
    @Test
    void everyOverlayIsDescribedWithItsTree() throws Exception {
        String readme = Files.readString(OVERLAYS.resolve("README.md"));
        Matcher m = Pattern.compile("(?m)^## (\\S+) \\(over `([^`]+)`\\)$").matcher(readme);
        List<String> described = new java.util.ArrayList<>();
        while (m.find()) {
            described.add(m.group(1));
            assertTrue(Hosts.all().contains(m.group(2)), m.group(1) + " goes over " + m.group(2) + ", which is no tree");
        }
        assertEquals(overlays(), described);
        assertFalse(described.isEmpty());
    }

    @Test
    void anOverlayAddsAndReplacesFiles(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path root = Hosts.layered("gpu-server", "vgpu-host", tmp.resolve("h"));
        Path config = root.resolve("sys/bus/pci/devices/0000:07:00.0/config");
        assertEquals(4096, Files.size(config));
        assertEquals(Files.readString(Hosts.root("gpu-server").resolve("sys/bus/pci/devices/0000:07:00.0/vendor")),
                Files.readString(root.resolve("sys/bus/pci/devices/0000:07:00.0/vendor")), "the tree's own files stay");
        assertFalse(Files.exists(Hosts.root("gpu-server").resolve("sys/bus/pci/devices/0000:07:00.0/config")),
                "the tree itself is not changed");
    }
}
