package io.nodelabeller.config;

import io.nodelabeller.testing.ConfigMapVolume;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The choice among the device plugin's named configs, in the order of its config-manager
 * (cmd/config-manager/main.go, updateConfigName: label, default, then the fallbacks named / single / empty),
 * on a directory written as kubelet writes a ConfigMap volume.
 */
class DevicePluginConfigsTest {

    @TempDir
    Path tmp;

    @Test
    void theLabelWinsThenTheDefaultThenTheNamedFallbackThenTheOnlyOne() throws Exception {
        Path dir = tmp.resolve("configs");
        ConfigMapVolume.write(dir, "a100-ts", "version: v1\n", "default", "version: v1\n", "mps", "version: v1\n");
        assertEquals(List.of("a100-ts", "default", "mps"), DevicePluginConfigs.names(dir), "..data and the like are not configs");
        assertEquals("mps", DevicePluginConfigs.choose(dir, "mps", "a100-ts").name());
        assertEquals(dir.resolve("mps"), DevicePluginConfigs.choose(dir, "mps", null).file());
        assertEquals("a100-ts", DevicePluginConfigs.choose(dir, null, "a100-ts").name());
        assertEquals("default", DevicePluginConfigs.choose(dir, "", null).name());

        Path single = tmp.resolve("single");
        ConfigMapVolume.write(single, "only", "version: v1\n");
        assertEquals("only", DevicePluginConfigs.choose(single, null, null).name());

        Path several = tmp.resolve("several");
        ConfigMapVolume.write(several, "x", "version: v1\n", "y", "version: v1\n");
        DevicePluginConfigs.Choice none = DevicePluginConfigs.choose(several, null, null);
        assertEquals("", none.name(), "the empty fallback: the device plugin's defaults");
        assertNull(none.file());
        assertEquals(List.of(), none.warnings());
    }

    @Test
    void aNameThatIsNotThereFallsBackWithAWarningWhereConfigManagerWouldStop() throws Exception {
        Path dir = tmp.resolve("configs");
        ConfigMapVolume.write(dir, "default", "version: v1\n", "ts", "version: v1\n");
        DevicePluginConfigs.Choice c = DevicePluginConfigs.choose(dir, "typo", "missing");
        assertEquals("default", c.name());
        assertEquals(2, c.warnings().size());
        assertTrue(c.warnings().get(0).startsWith("node label nvidia.com/device-plugin.config=typo names no config in "
                + dir + " (it has [default, ts])"), c.warnings().get(0));
        assertTrue(c.warnings().get(1).startsWith("the default device plugin config 'missing' is not in"), c.warnings().get(1));

        DevicePluginConfigs.Choice absent = DevicePluginConfigs.choose(tmp.resolve("absent"), "ts", null);
        assertEquals("", absent.name());
        assertTrue(absent.warnings().get(0).startsWith("cannot list the device plugin configs in "), absent.warnings().toString());
    }
}
