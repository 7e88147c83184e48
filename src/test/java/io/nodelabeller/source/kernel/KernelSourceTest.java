package io.nodelabeller.source.kernel;

import io.nodelabeller.source.kernel.KernelConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class KernelSourceTest {

    @TempDir
    Path root;

    private Features discover(String osrelease) throws Exception {
        Path f = root.resolve("proc/sys/kernel/osrelease");
        Files.createDirectories(f.getParent());
        Files.writeString(f, osrelease);
        return new KernelSource(KernelConfig.DEFAULT).discover(new HostFs(root), m -> { });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "6.2.3|6.2.3|6|2|3",
            "6.0.0-beta|6.0.0-beta|6|0|0",
            "6.8|6.8|6|8|''",
            "6.0.10-100+123.x86_64~|6.0.10-100_123.x86_64|6|0|10",
            "'5.15.0-91-generic  '|5.15.0-91-generic|5|15|0",
    })
    void versionAsNfd(String raw, String full, String major, String minor, String revision) throws Exception {
        Features f = discover(raw);
        assertEquals(full, f.attribute("kernel.version", "full"));
        assertEquals(major, f.attribute("kernel.version", "major"));
        assertEquals(minor, f.attribute("kernel.version", "minor"));
        assertEquals(revision, f.attribute("kernel.version", "revision"));
        assertEquals(root.resolve("proc/sys/kernel/osrelease").toString(), f.origin("kernel.version"));
    }

    /** A release NFD's pattern does not match gives only {@code full}: major, minor and revision are absent, not empty. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "rc6.1-custom|rc6.1-custom",
            "6.2.3.4|6.2.3.4",
            "6.2.x|6.2.x",
    })
    void aReleaseThatIsNotAVersionGivesOnlyFull(String raw, String full) throws Exception {
        Features f = discover(raw);
        assertEquals(full, f.attribute("kernel.version", "full"));
        assertEquals(null, f.attribute("kernel.version", "major"));
        assertEquals(null, f.attribute("kernel.version", "minor"));
        assertEquals(null, f.attribute("kernel.version", "revision"));
    }


    @Test
    void missingOsreleaseFailsTheSource() {
        assertThrows(Exception.class, () -> new KernelSource(KernelConfig.DEFAULT).discover(new HostFs(root), m -> { }));
    }
}
