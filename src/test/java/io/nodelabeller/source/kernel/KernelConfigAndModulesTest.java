package io.nodelabeller.source.kernel;

import io.nodelabeller.source.kernel.KernelConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelConfigAndModulesTest {

    private static final String VER = "6.8.0-45-generic+x~1";

    @TempDir
    Path root;

    private final List<String> warnings = new ArrayList<>();

    private Path write(String hostPath, String content) throws Exception {
        Path p = root.resolve(hostPath.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        return p;
    }

    private void gzip(String hostPath, String content) throws Exception {
        Path p = root.resolve(hostPath.substring(1));
        Files.createDirectories(p.getParent());
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
            out.write(content.getBytes());
        }
    }

    /** Discovers the temp tree, keeping only kernel.config warnings (the trees have no /proc/modules). */
    private Features discover(KernelConfig config) throws Exception {
        return new KernelSource(config).discover(new HostFs(root), w -> {
            if (w.startsWith("kernel.config")) {
                warnings.add(w);
            }
        });
    }

    /** Each candidate holds CONFIG_FROM=<its own name>, so the winner is visible. */
    @Test
    void searchOrderAsNfd() throws Exception {
        write("/proc/sys/kernel/osrelease", VER + "\n");
        write("/boot/config-" + VER, "CONFIG_FROM=boot\n");
        assertEquals("boot", discover(KernelConfig.DEFAULT).attribute("kernel.config", "FROM"));
        write("/lib/modules/" + VER + "/build/.config", "CONFIG_FROM=build\n");
        assertEquals("build", discover(KernelConfig.DEFAULT).attribute("kernel.config", "FROM"));
        write("/usr/lib/modules/" + VER + "/config", "CONFIG_FROM=usr-lib-modules\n");
        assertEquals("usr-lib-modules", discover(KernelConfig.DEFAULT).attribute("kernel.config", "FROM"));
        write("/usr/src/linux-" + VER + "/.config", "CONFIG_FROM=usr-src\n");
        assertEquals("usr-src", discover(KernelConfig.DEFAULT).attribute("kernel.config", "FROM"));
        gzip("/proc/config.gz", "CONFIG_FROM=proc\n");
        Features f = discover(KernelConfig.DEFAULT);
        assertEquals("proc", f.attribute("kernel.config", "FROM"));
        assertEquals(root.resolve("proc/config.gz").toString(), f.origin("kernel.config"));
        gzip("/etc/my-kconfig.gz", "CONFIG_FROM=configured\n");
        assertEquals("configured", discover(new KernelConfig("/etc/my-kconfig.gz", List.of()))
                .attribute("kernel.config", "FROM"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void unreadableCandidateIsSkippedWithAWarning() throws Exception {
        write("/proc/sys/kernel/osrelease", VER + "\n");
        write("/proc/config.gz", "CONFIG_FROM=proc-but-not-gzip\n");
        write("/boot/config-" + VER, "CONFIG_FROM=boot\n");
        assertEquals("boot", discover(KernelConfig.DEFAULT).attribute("kernel.config", "FROM"));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("/proc/config.gz"), warnings.toString());
    }

    @Test
    void noConfigAnywhereIsAWarningNotAFailure() throws Exception {
        write("/proc/sys/kernel/osrelease", VER + "\n");
        Features f = discover(KernelConfig.DEFAULT);
        assertTrue(f.attributes("kernel.config").isEmpty());
        assertEquals("6", f.attribute("kernel.version", "major"));
        assertTrue(warnings.stream().anyMatch(w -> w.contains("/boot/config-" + VER)), warnings.toString());
    }

    @Test
    void missingConfiguredFileIsReported() throws Exception {
        write("/proc/sys/kernel/osrelease", VER + "\n");
        write("/boot/config-" + VER, "CONFIG_FROM=boot\n");
        assertEquals("boot", discover(new KernelConfig("/etc/nope.config", List.of())).attribute("kernel.config", "FROM"));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).contains("kconfigFile /etc/nope.config"), warnings.toString());
    }

    /**
     * One source instance lives for the process: it parses the config once and again only when the file's size or
     * modification time changes. Shown by a rewrite that keeps both (the old value stays) and one that does not.
     */
    @Test
    void theConfigIsParsedAgainOnlyWhenItsFileChanged() throws Exception {
        write("/proc/sys/kernel/osrelease", VER + "\n");
        Path config = write("/boot/config-" + VER, "CONFIG_PREEMPT=y\n");
        java.nio.file.attribute.FileTime modified = Files.getLastModifiedTime(config);
        KernelSource source = new KernelSource(KernelConfig.DEFAULT);
        HostFs host = new HostFs(root);
        assertEquals("y", source.discover(host, w -> { }).attribute("kernel.config", "PREEMPT"));

        Files.writeString(config, "CONFIG_PREEMPT=m\n"); // same size
        Files.setLastModifiedTime(config, modified); // and the same time: taken as unchanged
        assertEquals("y", source.discover(host, w -> { }).attribute("kernel.config", "PREEMPT"), "kept, not re-read");

        Files.setLastModifiedTime(config, java.nio.file.attribute.FileTime.fromMillis(modified.toMillis() + 60_000));
        assertEquals("m", source.discover(host, w -> { }).attribute("kernel.config", "PREEMPT"), "changed: parsed again");

        Files.writeString(config, "CONFIG_PREEMPT=y\nCONFIG_NO_HZ=y\n"); // another size
        Files.setLastModifiedTime(config, java.nio.file.attribute.FileTime.fromMillis(modified.toMillis() + 60_000));
        assertEquals("y", source.discover(host, w -> { }).attribute("kernel.config", "NO_HZ"));
    }

    @Test
    void parsesValuesAsNfd() {
        Map<String, String> opts = KernelConfigFile.parse("""
                CONFIG_A=y
                CONFIG_B=m
                CONFIG_HZ=250
                CONFIG_S="quoted string"
                # CONFIG_NOT is not set
                CONFIG_EMPTY=
                 CONFIG_INDENTED=y
                """);
        assertEquals(Map.of("A", "y", "B", "m", "HZ", "250", "S", "quoted string"), opts);
    }

    @Test
    void releaseWithSlashNamesNoFiles() throws Exception {
        write("/proc/sys/kernel/osrelease", "../../etc\n");
        write("/usr/src/linux/.config", "CONFIG_FROM=versionless\n");
        assertEquals("versionless", discover(KernelConfig.DEFAULT).attribute("kernel.config", "FROM"));
        assertEquals(List.of("/proc/config.gz", "/usr/src/linux/.config"), KernelConfigFile.candidates("", null));
    }

    @Test
    void gpuServerModulesSelinuxKvm() throws Exception {
        Features f = new KernelSource(KernelConfig.DEFAULT).discover(Hosts.fs("gpu-server"), warnings::add);
        assertTrue(f.flags("kernel.loadedmodule").containsAll(List.of("nvidia", "ib_uverbs", "rdma_ucm", "mlx5_core")));
        assertFalse(f.flags("kernel.loadedmodule").contains("ext4"), "built-in, not loaded");
        assertTrue(f.flags("kernel.enabledmodule").containsAll(List.of("nvidia", "ib_uverbs", "ext4", "libata", "aesni-intel")));
        assertEquals("false", f.attribute("kernel.selinux", "enabled"));
        assertEquals("true", f.attribute("kernel.kvm", "enabled"));
        assertEquals("y", f.attribute("kernel.config", "NO_HZ_FULL"));
        assertEquals("(none)", f.attribute("kernel.config", "DEFAULT_HOSTNAME"));
        assertTrue(f.origin("kernel.config").endsWith("boot/config-5.15.0-91-generic"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void cloudVmReadsItsRealConfigGz() throws Exception {
        Features f = new KernelSource(KernelConfig.DEFAULT).discover(Hosts.fs("cloud-vm"), warnings::add);
        assertEquals("y", f.attribute("kernel.config", "NO_HZ_IDLE"));
        assertFalse(f.attributes("kernel.config").containsKey("NO_HZ_FULL"), "'# ... is not set' is no option");
        assertTrue(f.flags("kernel.loadedmodule").isEmpty());
        assertEquals(List.of("kernel.loadedmodule: no /proc/modules under the host root"), warnings);
    }
}
