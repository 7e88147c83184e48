package io.nodelabeller.config;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.yaml.YamlNode;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.yaml.Yaml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The NVIDIA device plugin's config file, with the plugin's own parser tests as vectors (NVIDIA/k8s-device-plugin api/config/v1/*_test.go). */
class DevicePluginConfigTest {

    @TempDir
    Path tmp;

    private static DevicePluginConfig parse(String text) throws ConfigException {
        return ConfigLoader.parseDevicePlugin("dp.yaml", text);
    }

    private static List<String> problems(String text) {
        return assertThrows(ConfigException.class, () -> parse(text)).problems();
    }

    /** Parses one {@code devices} value; problems are returned through {@code problems}. */
    private static ReplicatedDevices devices(String json, List<String> problems) throws ConfigException {
        return ReplicatedDevices.read(YamlNode.root("dp.yaml", Yaml.readTree("dp.yaml", "devices: " + json), problems)
                .child("devices"));
    }

    private static ReplicatedResource resource(String json, List<String> problems) throws ConfigException {
        return ReplicatedResource.read(YamlNode.root("dp.yaml", Yaml.readTree("dp.yaml", json), problems));
    }

    @Test
    void realSharedConfigMap() throws Exception {
        DevicePluginConfig dp = parse("""
                version: v1
                flags:
                  migStrategy: single
                  failOnInitError: true
                  nvidiaDriverRoot: /run/nvidia/driver
                  plugin:
                    passDeviceSpecs: false
                    deviceListStrategy: [envvar, cdi-annotations]
                    deviceIDStrategy: uuid
                  gfd:
                    oneshot: false
                    noTimestamp: false
                    sleepInterval: 60s
                    outputFile: /etc/kubernetes/node-feature-discovery/features.d/gfd
                    machineTypeFile: /sys/class/dmi/id/product_name
                sharing:
                  timeSlicing:
                    renameByDefault: false
                    failRequestsGreaterThanOne: false
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """);
        assertEquals("single", dp.migStrategy());
        assertTrue(dp.failOnInitErrorOrDefault());
        assertEquals(Duration.ofSeconds(60), dp.gfd().sleepInterval());
        assertEquals("time-slicing", dp.sharing().strategy());
        assertEquals(4, dp.sharing().resource("nvidia.com/gpu").replicas());
        assertFalse(dp.sharing().resource("nvidia.com/gpu").renamed());
        assertEquals("dp.yaml", dp.origin());
    }

    @Test
    void defaults() throws Exception {
        DevicePluginConfig dp = parse("");
        assertEquals("none", dp.migStrategy());
        assertFalse(dp.failOnInitErrorOrDefault(), "node-labeller runs on GPU-less nodes too: unset means false");
        assertEquals("none", dp.sharing().strategy());
        assertEquals("none", parse("version: v1\nflags: {}").migStrategy());
        assertFalse(DevicePluginConfig.DEFAULT.given());
    }

    @Test
    void mpsFailRequestsGreaterThanOneDefaultsToTrue() throws Exception {
        assertEquals(Boolean.TRUE, parse("sharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}")
                .sharing().mps().failRequestsGreaterThanOne());
        assertEquals(Boolean.FALSE, parse("sharing: {mps: {failRequestsGreaterThanOne: false, resources: "
                + "[{name: nvidia.com/gpu, replicas: 2}]}}").sharing().mps().failRequestsGreaterThanOne());
        assertNull(parse("sharing: {timeSlicing: {resources: [{name: gpu, replicas: 2}]}}")
                .sharing().timeSlicing().failRequestsGreaterThanOne());
    }

    @Test
    void sleepIntervalAsTheDevicePluginReadsIt() throws Exception {
        String f = "flags: {gfd: {sleepInterval: %s}}";
        assertEquals(Duration.ZERO, parse(f.formatted("0")).gfd().sleepInterval());
        assertEquals(Duration.ZERO, parse(f.formatted("\"0s\"")).gfd().sleepInterval());
        assertEquals(Duration.ofNanos(5), parse(f.formatted("5")).gfd().sleepInterval(), "a number is nanoseconds");
        assertEquals(Duration.ofSeconds(5), parse(f.formatted("5s")).gfd().sleepInterval());
        assertEquals(Duration.ofNanos(Long.MAX_VALUE), parse(f.formatted("infinite")).gfd().sleepInterval());
        assertNull(parse("flags: {gfd: {}}").gfd().sleepInterval());
        assertTrue(problems(f.formatted("soon")).get(0).startsWith("dp.yaml: flags.gfd.sleepInterval: expected a duration"));
        assertTrue(problems(f.formatted("2.5")).get(0).startsWith("dp.yaml: flags.gfd.sleepInterval: expected a whole number"));
    }

    @Test
    void deviceListStrategyIsAStringOrAList() throws Exception {
        parse("flags: {plugin: {deviceListStrategy: envvar}}");
        parse("flags: {plugin: {deviceListStrategy: [envvar, cdi-annotations]}}");
        assertEquals(List.of("dp.yaml: flags.plugin.deviceListStrategy: expected a string, got a mapping"),
                problems("flags: {plugin: {deviceListStrategy: {a: b}}}"));
    }

    @Test
    void deviceReferences() {
        assertEquals("gpu-index", ReplicatedDevices.kind("0"));
        assertEquals("mig-index", ReplicatedDevices.kind("0:0"));
        assertEquals("uuid", ReplicatedDevices.kind("GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c"));
        assertEquals("uuid", ReplicatedDevices.kind("MIG-3eb87630-93d5-b2b6-b8ff-9b359caf4ee2"));
        assertEquals("uuid", ReplicatedDevices.kind("MIG-GPU-662077db-fa3f-0d8f-9502-21ab0ef058a2/10/0"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"not-all\"", "-2", "0", "2.0", "[-1]", "[\"-1\"]", "[\"invalid-UUID\"]", "[\"GPU-UUID\"]",
            "[\"MIG-UUID\"]", "[\"MIG-GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c\"]", "{a: 1}"})
    void badDevices(String json) throws Exception {
        List<String> problems = new ArrayList<>();
        devices(json, problems);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("dp.yaml: devices"), problems.toString());
    }

    @Test
    void goodDevices() throws Exception {
        List<String> problems = new ArrayList<>();
        assertEquals(ReplicatedDevices.ALL, devices("all", problems));
        assertEquals(new ReplicatedDevices(false, 2, List.of()), devices("2", problems));
        assertEquals(List.of("0"), devices("[0]", problems).list());
        assertEquals(List.of("0"), devices("[\"0\"]", problems).list());
        assertEquals(List.of("0:0"), devices("[\"0:0\"]", problems).list());
        String gpu = "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c";
        assertEquals(List.of("0", "0:0", gpu), devices("[0, \"0:0\", " + gpu + "]", problems).list());
        assertEquals(List.of("MIG-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c", "MIG-GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c/0/0"),
                devices("[MIG-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c, MIG-GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c/0/0]", problems).list());
        assertEquals(List.of(), problems);
    }

    @Test
    void replicatedResourceVectors() throws Exception {
        List<String> p = new ArrayList<>();
        assertEquals(new ReplicatedResource("nvidia.com/valid", null, ReplicatedDevices.ALL, 2),
                resource("{name: valid, devices: all, replicas: 2}", p));
        assertEquals(new ReplicatedResource("nvidia.com/valid", "nvidia.com/valid-shared", ReplicatedDevices.ALL, 2),
                resource("{name: valid, devices: all, replicas: 2, rename: valid-shared}", p));
        assertEquals(ReplicatedDevices.ALL, resource("{name: valid, replicas: 2}", p).devices());
        assertEquals(List.of(), p);
        for (String bad : List.of("{}", "{name: valid}", "{name: valid, replicas: -1}", "{name: valid, replicas: 0}",
                "{name: valid, replicas: 1}", "{name: $invalid$, replicas: 2, rename: valid-shared}",
                "{name: valid, replicas: 2, rename: $invalid$}", "{name: example.com/gpu, replicas: 2}",
                "{name: " + "g".repeat(53) + ", replicas: 2}")) {
            List<String> problems = new ArrayList<>();
            resource(bad, problems);
            assertFalse(problems.isEmpty(), bad);
        }
        List<String> longName = new ArrayList<>();
        resource("{name: " + "g".repeat(53) + ", replicas: 2}", longName);
        assertEquals(List.of("dp.yaml: name: fully-qualified resource name must be 63 characters or less, 'nvidia.com/"
                + "g".repeat(53) + "' has 64"), longName);
        List<String> fits = new ArrayList<>();
        assertEquals("nvidia.com/" + "g".repeat(52), resource("{name: " + "g".repeat(52) + ", replicas: 2}", fits).name());
        assertEquals(List.of(), fits);
    }

    @Test
    void replicatedResourcesVectors() throws Exception {
        for (String bad : List.of("sharing: {timeSlicing: {}}", "sharing: {timeSlicing: {resources: []}}",
                "sharing: {mps: {resources: [{name: $invalid$, replicas: 2}]}}")) {
            assertFalse(problems(bad).isEmpty(), bad);
        }
        assertEquals(List.of("dp.yaml: sharing.timeSlicing.resources: no resources specified (expected a non-empty list "
                + "of {name, replicas})"), problems("sharing: {timeSlicing: {}}"));
        DevicePluginConfig two = parse("sharing: {timeSlicing: {resources: [{name: valid1, replicas: 2}, {name: valid2, replicas: 2}]}}");
        assertEquals(List.of("nvidia.com/valid1", "nvidia.com/valid2"),
                two.sharing().timeSlicing().resources().stream().map(ReplicatedResource::name).toList());
    }

    @Test
    void renameAndDevicesAreWhatThePluginUses() throws Exception {
        String yaml = """
                sharing:
                  timeSlicing:
                    renameByDefault: %s
                    resources:
                    - {name: gpu, rename: gpu-ts, devices: [0, 1], replicas: 3}
                """;
        ReplicatedResource off = parse(yaml.formatted("false")).sharing().resource("nvidia.com/gpu");
        assertFalse(off.renamed(), "an explicit rename is not supported by the plugin yet");
        assertEquals(ReplicatedDevices.ALL, off.devices());
        ReplicatedResource on = parse(yaml.formatted("true")).sharing().resource("nvidia.com/gpu");
        assertEquals("nvidia.com/gpu.shared", on.rename());
    }

    @Test
    void everyKeyIsCheckedWithFileAndPath() {
        List<String> p = problems("""
                version: v2
                flags:
                  migStrategy: bogus
                  failOnInitError: "yes"
                  deviceDiscoveryStrategy: magic
                  gfd: {noTimestamp: 1, bogus: true}
                sharing:
                  timeSlicing:
                    resources:
                    - name: gpu
                      replicas: 1
                imex: {channelIDs: [2]}
                extra: 1
                """);
        assertTrue(p.contains("dp.yaml: version: unknown version 'v2' (expected v1)"), p.toString());
        assertTrue(p.contains("dp.yaml: flags.migStrategy: expected one of none, single, mixed, got 'bogus'"), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("dp.yaml: flags.failOnInitError: expected true or false")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("dp.yaml: flags.deviceDiscoveryStrategy: expected one of auto")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("dp.yaml: flags.gfd.noTimestamp: expected true or false")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("dp.yaml: flags.gfd.bogus: unknown key")), p.toString());
        assertTrue(p.contains("dp.yaml: sharing.timeSlicing.resources[0].replicas: number of replicas must be >= 2, got 1"),
                p.toString());
        assertTrue(p.contains("dp.yaml: imex.channelIDs[0]: only channel ID 0 is supported, got 2"), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("dp.yaml: extra: unknown key")), p.toString());
        assertEquals(9, p.size(), p.toString());
    }

    @Test
    void imexAndResourcePatternsAreAccepted() throws Exception {
        parse("imex: {channelIDs: [0], required: true}\nresources: {gpus: [{pattern: '*', name: gpu}]}");
        parse("imex: {channelIDs: []}");
    }

    @Test
    void fromTheCommandLineOrTheConfigSectionButNotBoth() throws Exception {
        Path dpFile = tmp.resolve("dp.yaml");
        Files.writeString(dpFile, "flags: {migStrategy: mixed}\n");
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "devicePlugin:\n  flags: {migStrategy: single}\n");
        Path plain = tmp.resolve("plain.yaml");
        Files.writeString(plain, "core: {sleepInterval: 30s}\n");

        assertEquals("mixed", Catalog.configLoader().load(null, dpFile).devicePlugin().migStrategy());
        assertEquals("mixed", Catalog.configLoader().load(plain, dpFile).devicePlugin().migStrategy());
        Config section = Catalog.configLoader().load(cfg, null);
        assertEquals("single", section.devicePlugin().migStrategy());
        assertEquals(cfg + " (devicePlugin)", section.devicePlugin().origin());
        ConfigException both = assertThrows(ConfigException.class, () -> Catalog.configLoader().load(cfg, dpFile));
        assertTrue(both.getMessage().contains("devicePlugin: given both here and with --device-plugin-config " + dpFile),
                both.getMessage());
        assertTrue(assertThrows(ConfigException.class, () -> Catalog.configLoader().load(null, tmp.resolve("none.yaml")))
                .getMessage().endsWith("none.yaml: file not found"));
        ConfigException inSection = assertThrows(ConfigException.class, () -> Catalog.configLoader().parse("c.yaml",
                "devicePlugin:\n  flags: {migStrategy: all}\n"));
        assertEquals(List.of("c.yaml: devicePlugin.flags.migStrategy: expected one of none, single, mixed, got 'all'"),
                inSection.problems());
    }
}
