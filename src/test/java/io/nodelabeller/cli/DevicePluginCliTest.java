package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --device-plugin-config} on the command line: bad files are usage errors naming file and key; a key the
 * device plugin ignores (a typo, a newer plugin's flag) is ignored with one warning naming it, as the plugin's
 * non-strict unmarshal does (k8s-device-plugin {@code api/config/v1/config.go}), and check-config reports it; the host
 * agent reads none of it.
 */
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

    @Test
    void aKeyTheDevicePluginIgnoresIsIgnoredWithOneWarning() throws Exception {
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags: {migStrategy: single, someFutureFlag: true}\n");
        Cli.Result r = Cli.run("print", "--device-plugin-config", dp.toString(), "--host-root",
                Hosts.root("cloud-vm").toString());
        assertEquals(0, r.code(), r.err());
        java.util.List<String> warned = r.err().lines().filter(l -> l.contains("flags.someFutureFlag")).toList();
        assertEquals(1, warned.size(), r.err());
        assertTrue(warned.get(0).contains(" WARN ") && warned.get(0).contains(dp + ": flags.someFutureFlag: unknown key,"
                + " ignored as the NVIDIA device plugin ignores it"), warned.get(0));
        io.nodelabeller.config.Config loaded = io.nodelabeller.catalog.Catalog.configLoader().load(null, dp);
        assertEquals("single", loaded.devicePlugin().migStrategy(), "the rest applied");
        assertEquals(java.util.List.of(dp + ": flags.someFutureFlag: unknown key, ignored as the NVIDIA device plugin"
                + " ignores it (known here: migStrategy, failOnInitError, mpsRoot, nvidiaDriverRoot, nvidiaDevRoot,"
                + " gdrcopyEnabled, gdsEnabled, mofedEnabled, useNodeFeatureAPI, deviceDiscoveryStrategy, plugin, gfd)"),
                loaded.warnings());
        Cli.Result check = Cli.run("check-config", "--device-plugin-config", dp.toString());
        assertEquals(2, check.code(), check.err());
        assertTrue(check.err().contains(dp + ": flags.someFutureFlag: unknown key"), check.err());
    }

    /**
     * The host agent starts whatever state the GPU agent's configuration is in: a missing file, a broken one, a
     * directory that is not there. The GPU agent still refuses a broken file.
     */
    @Test
    void theHostAgentReadsNoDevicePluginConfig() throws Exception {
        Path bad = tmp.resolve("bad.yaml");
        Files.writeString(bad, "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n");
        String root = Hosts.root("gpu-server").toString();
        for (String[] given : java.util.List.of(new String[] {"--device-plugin-config", bad.toString()},
                new String[] {"--device-plugin-config", tmp.resolve("missing.yaml").toString()},
                new String[] {"--device-plugin-config-dir", tmp.resolve("no-such-dir").toString()})) {
            Cli.Result r = Cli.runWith(java.util.Map.of("NODE_LABELLER_ROLE", "host"), "print", given[0], given[1],
                    "--host-root", root);
            assertEquals(0, r.code(), given[1] + ": " + r.err());
            assertTrue(r.out().contains("nvidia.com/gpu.present=true"), r.out());
            assertTrue(r.err().lines().noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR ")), r.err());
        }
        assertEquals(2, Cli.runWith(java.util.Map.of("NODE_LABELLER_ROLE", "gpu"), "print", "--device-plugin-config",
                bad.toString(), "--host-root", root).code());
    }
}
