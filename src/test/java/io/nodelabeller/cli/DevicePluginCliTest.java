package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --device-plugin-config} on the command line: bad files are usage errors naming file and key. */
class DevicePluginCliTest {

    @TempDir
    Path tmp;

    @Test
    void badDevicePluginConfigExitsTwoNamingFileAndKey() throws Exception {
        Path bad = tmp.resolve("bad.yaml");
        Files.writeString(bad, "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n");
        for (String cmd : new String[] {"print", "explain", "check-config"}) {
            Cli.Result r = Cli.run(cmd, "--device-plugin-config", bad.toString(),
                    "--host-root", Hosts.root("cloud-vm").toString());
            assertEquals(2, r.code(), cmd + ": " + r.err());
            assertTrue(r.err().contains(bad + ": sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2, got 1"),
                    r.err());
            assertEquals("", r.out());
        }
    }

    @Test
    void goodDevicePluginConfigIsAccepted() throws Exception {
        Path good = tmp.resolve("dp.yaml");
        Files.writeString(good, "version: v1\nflags: {migStrategy: single}\n");
        Cli.Result r = Cli.run("print", "--device-plugin-config", good.toString(),
                "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("kernel-version.major="), r.out());
    }

    @Test
    void bothTheFileAndTheConfigSectionIsAnError() throws Exception {
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "flags: {migStrategy: mixed}\n");
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "devicePlugin:\n  flags: {migStrategy: single}\n");
        Cli.Result r = Cli.run("check-config", "--config", cfg.toString(), "--device-plugin-config", dp.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(cfg + ": devicePlugin: given both here and with --device-plugin-config " + dp), r.err());
        assertEquals(0, Cli.run("check-config", "--config", cfg.toString()).code());
    }

    @Test
    void checkConfigChecksEveryNamedConfigOfADirectory() throws Exception {
        Path dir = tmp.resolve("configs");
        io.nodelabeller.testing.ConfigMapVolume.write(dir, "default", "version: v1\n",
                "broken", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n");
        Cli.Result bad = Cli.run("check-config", "--device-plugin-config-dir", dir.toString());
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains(dir.resolve("broken") + ": sharing.timeSlicing.resources[0].replicas: number of "
                + "replicas must be >= 2, got 1"), bad.err());

        io.nodelabeller.testing.ConfigMapVolume.write(dir, "default", "version: v1\n", "ts", "version: v1\n");
        Cli.Result ok = Cli.run("check-config", "--device-plugin-config-dir", dir.toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().contains(dir + ": ok (device plugin configs)"), ok.out());
        assertEquals(2, Cli.run("check-config", "--device-plugin-config-dir", dir.toString(),
                "--device-plugin-config", dir.resolve("ts").toString()).code(), "one or the other");
    }
}
