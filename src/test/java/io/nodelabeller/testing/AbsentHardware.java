package io.nodelabeller.testing;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule every source follows for hardware a node may not have (HostFs.listHardware), checked for one source
 * and the sysfs directory it lists: without a visible sysfs the source fails; with one and without the directory
 * it discovers no devices and warns of nothing; with the directory there but not listable it fails.
 */
public final class AbsentHardware {

    private AbsentHardware() {
    }

    /** Checks the rule for {@code source} listing {@code dir} ("/sys/bus/pci/devices"), in empty directory {@code tmp}. */
    public static void check(Source source, String dir, Path tmp) throws Exception {
        HostFs host = new HostFs(tmp);
        assertThrows(Exception.class, () -> source.discover(host, m -> { }), "no visible sysfs: the source fails");

        Files.createDirectories(tmp.resolve("sys/devices"));
        List<String> warnings = new ArrayList<>();
        Features none = source.discover(host, warnings::add);
        assertEquals(List.of(), warnings, "hardware the node does not have is nothing to warn about");
        assertTrue(none.allInstances().values().stream().allMatch(List::isEmpty), none.allInstances().toString());

        Path listed = tmp.resolve(dir.substring(1));
        Files.createDirectories(listed.getParent());
        Files.writeString(listed, "a file where the kernel makes a directory");
        assertThrows(Exception.class, () -> source.discover(host, m -> { }), dir + " cannot be listed: the source fails");
    }
}
