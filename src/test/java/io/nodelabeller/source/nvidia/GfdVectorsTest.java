package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.testing.GpuLayout;
import io.nodelabeller.testing.GpuLayout.Gpu;
import io.nodelabeller.testing.GpuLayout.Mig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.SortedMap;
import java.util.stream.Stream;

import static io.nodelabeller.source.nvidia.GpuTesting.B;
import static io.nodelabeller.source.nvidia.GpuTesting.plus;
import static io.nodelabeller.source.nvidia.GpuTesting.res;
import static io.nodelabeller.source.nvidia.GpuTesting.resource;
import static io.nodelabeller.source.nvidia.GpuTesting.set;
import static io.nodelabeller.source.nvidia.GpuTesting.sharing;
import static io.nodelabeller.source.nvidia.GpuTesting.strategy;
import static io.nodelabeller.testing.GpuLayout.gfdMock;
import static io.nodelabeller.testing.GpuLayout.mockFull;
import static io.nodelabeller.testing.GpuLayout.mockMigEnabled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** GFD's own unit tests as acceptance vectors (NVIDIA/k8s-device-plugin: cmd/gpu-feature-discovery/*_test.go, internal/lm/*_test.go), on GFD's mock devices. */
class GfdVectorsTest {

    /** GFD's labels for {@code layout}: node-labeller's per-model labels (beyond GFD) left out, as GFD has none. */
    private static SortedMap<String, String> labels(GpuLayout layout, DevicePluginConfig dp) {
        return GpuTesting.gfd(GpuTesting.labels(layout, dp));
    }

    private static final String[] FULL_MOCK = {"gpu.compute.major=8", "gpu.compute.minor=0", "gpu.family=ampere",
            "gpu.memory=300", "gpu.product=MOCKMODEL"};
    private static final String[] INVALID = {"gpu.count=0", "gpu.replicas=0", "gpu.sharing-strategy=",
            "gpu.memory=0", "gpu.product=MOCKMODEL-MIG-INVALID", "mig.strategy=single"};

    // cmd/gpu-feature-discovery/main_test.go: TestRunOneshot / TestRunWithNoTimestamp
    @Test
    void oneshotGivesBasePlusFullGpu() {
        SortedMap<String, String> expected = plus(B, "mig.capable=false", "gpu.count=1", "gpu.replicas=1",
                "gpu.sharing-strategy=none", "gpu.product=MOCKMODEL", "gpu.memory=300", "gpu.family=ampere",
                "gpu.compute.major=8", "gpu.compute.minor=0");
        assertEquals(expected, labels(gfdMock(mockFull()), DevicePluginConfig.DEFAULT));
        assertEquals(25, expected.size());
        SortedMap<String, String> noTs = GpuTesting.gfd(GpuTesting.labels(new NvidiaLabeler(DevicePluginConfig.DEFAULT, GpuTesting.START, true),
                gfdMock(mockFull()).features()));
        expected.remove("gfd.timestamp");
        assertEquals(expected, noTs);
        // flags.gfd.noTimestamp of the shared device plugin config does the same
        assertFalse(labels(gfdMock(mockFull()), GpuTesting.dp("flags: {gfd: {noTimestamp: true}}")).containsKey("gfd.timestamp"));
    }

    // cmd/gpu-feature-discovery/mig_test.go, full label sets
    static Stream<Arguments> migCmdCases() {
        Mig m3 = Mig.mock(3, 0, 20);
        return Stream.of(
                Arguments.of("none", gfdMock(mockMigEnabled(Mig.mock(3, 0, 20000), Mig.mock(3, 0, 20000))),
                        plus(B, "mig.capable=true", "gpu.count=1", "gpu.replicas=0", "gpu.sharing-strategy=none",
                                "gpu.product=MOCKMODEL", "gpu.memory=300")),
                Arguments.of("single", gfdMock(mockFull()),
                        plus(B, "mig.capable=false", "gpu.count=1", "gpu.replicas=1", "gpu.sharing-strategy=none",
                                "gpu.product=MOCKMODEL", "gpu.memory=300", "gpu.family=ampere", "gpu.compute.major=8",
                                "gpu.compute.minor=0", "mig.strategy=single")),
                Arguments.of("single", gfdMock(mockFull().migDevicesWithoutMig(Mig.mock(3, 0, 20000), Mig.mock(3, 0, 20000))),
                        plus(B, "mig.capable=false", "gpu.count=1", "gpu.replicas=1", "gpu.sharing-strategy=none",
                                "gpu.product=MOCKMODEL", "gpu.memory=300", "gpu.family=ampere", "gpu.compute.major=8",
                                "gpu.compute.minor=0", "mig.strategy=single")),
                Arguments.of("single", gfdMock(mockMigEnabled(m3, m3)),
                        plus(B, "mig.capable=true", "mig.strategy=single", "gpu.count=2", "gpu.replicas=1",
                                "gpu.sharing-strategy=none", "gpu.product=MOCKMODEL-MIG-3g.20gb", "gpu.memory=20",
                                "gpu.multiprocessors=0", "gpu.slices.gi=3", "gpu.slices.ci=0", "gpu.engines.copy=0",
                                "gpu.engines.decoder=0", "gpu.engines.encoder=0", "gpu.engines.jpeg=0", "gpu.engines.ofa=0")),
                Arguments.of("mixed", gfdMock(mockMigEnabled(m3, Mig.mock(1, 0, 5))),
                        plus(B, "mig.capable=true", "mig.strategy=mixed", "gpu.count=1", "gpu.replicas=0",
                                "gpu.sharing-strategy=none", "gpu.product=MOCKMODEL", "gpu.memory=300",
                                "mig-3g.20gb.count=1", "mig-3g.20gb.replicas=1", "mig-3g.20gb.sharing-strategy=none",
                                "mig-3g.20gb.product=MOCKMODEL-MIG-3g.20gb", "mig-3g.20gb.memory=20",
                                "mig-3g.20gb.multiprocessors=0", "mig-3g.20gb.slices.gi=3", "mig-3g.20gb.slices.ci=0",
                                "mig-3g.20gb.engines.copy=0", "mig-3g.20gb.engines.decoder=0", "mig-3g.20gb.engines.encoder=0",
                                "mig-3g.20gb.engines.jpeg=0", "mig-3g.20gb.engines.ofa=0",
                                "mig-1g.5gb.count=1", "mig-1g.5gb.replicas=1", "mig-1g.5gb.sharing-strategy=none",
                                "mig-1g.5gb.product=MOCKMODEL-MIG-1g.5gb", "mig-1g.5gb.memory=5",
                                "mig-1g.5gb.multiprocessors=0", "mig-1g.5gb.slices.gi=1", "mig-1g.5gb.slices.ci=0",
                                "mig-1g.5gb.engines.copy=0", "mig-1g.5gb.engines.decoder=0", "mig-1g.5gb.engines.encoder=0",
                                "mig-1g.5gb.engines.jpeg=0", "mig-1g.5gb.engines.ofa=0")));
    }

    @ParameterizedTest
    @MethodSource("migCmdCases")
    void migStrategiesGiveGfdsFullSets(String mig, GpuLayout layout, Map<String, String> expected) {
        assertEquals(expected, labels(layout, strategy(mig)));
    }

    // internal/lm/mig-strategy_test.go: TestMigStrategyNoneLabels (time-slicing nvidia.com/gpu x2 except case 2)
    static Stream<Arguments> noneCases() {
        DevicePluginConfig ts = sharing("none", false, res("nvidia.com/gpu", 2));
        String[] sharedFull = {"gpu.compute.major=8", "gpu.compute.minor=0", "gpu.family=ampere", "gpu.replicas=2",
                "gpu.sharing-strategy=time-slicing", "gpu.memory=300", "gpu.product=MOCKMODEL-SHARED"};
        return Stream.of(
                Arguments.of(new Gpu[0], DevicePluginConfig.DEFAULT, set()),
                Arguments.of(new Gpu[] {mockFull()}, DevicePluginConfig.DEFAULT,
                        plus(set(FULL_MOCK), "gpu.count=1", "gpu.replicas=1", "gpu.sharing-strategy=none")),
                Arguments.of(new Gpu[] {mockFull()}, ts, plus(set(sharedFull), "gpu.count=1")),
                Arguments.of(new Gpu[] {mockFull(), mockFull()}, ts, plus(set(sharedFull), "gpu.count=2")),
                Arguments.of(new Gpu[] {mockMigEnabled()}, ts, set("gpu.count=1", "gpu.replicas=0",
                        "gpu.sharing-strategy=none", "gpu.memory=300", "gpu.product=MOCKMODEL")),
                Arguments.of(new Gpu[] {mockMigEnabled(), mockMigEnabled()}, ts, set("gpu.count=2", "gpu.replicas=0",
                        "gpu.sharing-strategy=none", "gpu.memory=300", "gpu.product=MOCKMODEL")),
                Arguments.of(new Gpu[] {mockMigEnabled(), mockFull()}, ts, plus(set(sharedFull), "gpu.count=2")));
    }

    @ParameterizedTest
    @MethodSource("noneCases")
    void migStrategyNone(Gpu[] gpus, DevicePluginConfig dp, Map<String, String> expected) {
        assertEquals(expected, resource(labels(gfdMock(gpus), dp)));
    }

    // internal/lm/mig-strategy_test.go: TestMigStrategySingleLabels
    static Stream<Arguments> singleCases() {
        Mig m = Mig.mock(1, 2, 100);
        Mig rich = m.with("multiprocessorCount", 12).with("sharedCopyEngineCount", 13).with("sharedDecoderCount", 14)
                .with("sharedEncoderCount", 15).with("sharedJpegCount", 16).with("sharedOfaCount", 17);
        String[] fullSingle = {"gpu.compute.major=8", "gpu.compute.minor=0", "gpu.family=ampere", "gpu.replicas=1",
                "gpu.sharing-strategy=none", "gpu.memory=300", "gpu.product=MOCKMODEL", "mig.strategy=single"};
        return Stream.of(
                Arguments.of(new Gpu[0], set()),
                Arguments.of(new Gpu[] {mockFull()}, plus(set(fullSingle), "gpu.count=1")),
                Arguments.of(new Gpu[] {mockFull(), mockFull()}, plus(set(fullSingle), "gpu.count=2")),
                Arguments.of(new Gpu[] {mockMigEnabled(m)}, set("gpu.count=1", "gpu.replicas=1",
                        "gpu.sharing-strategy=none", "gpu.memory=100", "gpu.product=MOCKMODEL-MIG-1g.100gb",
                        "mig.strategy=single", "gpu.multiprocessors=0", "gpu.slices.gi=1", "gpu.slices.ci=2",
                        "gpu.engines.copy=0", "gpu.engines.decoder=0", "gpu.engines.encoder=0", "gpu.engines.jpeg=0",
                        "gpu.engines.ofa=0")),
                Arguments.of(new Gpu[] {mockMigEnabled(rich), mockMigEnabled(rich)}, set("gpu.count=2", "gpu.replicas=1",
                        "gpu.sharing-strategy=none", "gpu.memory=100", "gpu.product=MOCKMODEL-MIG-1g.100gb",
                        "mig.strategy=single", "gpu.multiprocessors=12", "gpu.slices.gi=1", "gpu.slices.ci=2",
                        "gpu.engines.copy=13", "gpu.engines.decoder=14", "gpu.engines.encoder=15", "gpu.engines.jpeg=16",
                        "gpu.engines.ofa=17")),
                // the three INVALID causes: an empty MIG GPU, two profiles, MIG and non-MIG GPUs together
                Arguments.of(new Gpu[] {mockMigEnabled()}, set(INVALID)),
                Arguments.of(new Gpu[] {mockMigEnabled(m, Mig.mock(3, 4, 100))}, set(INVALID)),
                Arguments.of(new Gpu[] {mockMigEnabled(m), mockFull()},
                        plus(set(INVALID), "gpu.compute.major=8", "gpu.compute.minor=0", "gpu.family=ampere")),
                Arguments.of(new Gpu[] {mockMigEnabled(m), mockFull(), mockMigEnabled()},
                        plus(set(INVALID), "gpu.compute.major=8", "gpu.compute.minor=0", "gpu.family=ampere")));
    }

    @ParameterizedTest
    @MethodSource("singleCases")
    void migStrategySingle(Gpu[] gpus, Map<String, String> expected) {
        assertEquals(expected, resource(labels(gfdMock(gpus), strategy("single"))));
    }

    // internal/lm/resource_test.go: TestGPUResourceLabeler (rename as given, as GFD's unit test calls the labeler)
    static Stream<Arguments> resourceCases() {
        return Stream.of(
                Arguments.of(DevicePluginConfig.DEFAULT, "1", "none", "MOCKMODEL"),
                Arguments.of(sharing("none", false, res("nvidia.com/not-gpu", 2)), "1", "none", "MOCKMODEL"),
                Arguments.of(sharing("none", false, res("nvidia.com/gpu", 2)), "2", "time-slicing", "MOCKMODEL-SHARED"),
                Arguments.of(sharing("none", false, res("nvidia.com/gpu", 2, "nvidia.com/gpu.shared")), "2", "time-slicing", "MOCKMODEL"),
                Arguments.of(sharing("none", true, res("nvidia.com/not-gpu", 2)), "1", "none", "MOCKMODEL"),
                Arguments.of(sharing("none", true, res("nvidia.com/gpu", 2)), "2", "mps", "MOCKMODEL-SHARED"),
                Arguments.of(sharing("none", true, res("nvidia.com/gpu", 2, "nvidia.com/gpu.shared")), "2", "mps", "MOCKMODEL"));
    }

    @ParameterizedTest
    @MethodSource("resourceCases")
    void gpuResourceLabeler(DevicePluginConfig dp, String replicas, String strategy, String product) {
        assertEquals(set("gpu.count=1", "gpu.memory=300", "gpu.family=ampere", "gpu.compute.major=8", "gpu.compute.minor=0",
                "gpu.replicas=" + replicas, "gpu.sharing-strategy=" + strategy, "gpu.product=" + product),
                resource(labels(gfdMock(mockFull()), dp)));
    }

    // internal/lm/resource_test.go: TestMigResourceLabeler, adapted: the resource name follows the device's profile (1g.300gb)
    static Stream<Arguments> migResourceCases() {
        String r = "nvidia.com/mig-1g.300gb";
        return Stream.of(
                Arguments.of("single", sharing("single", false), "gpu.", "1", "none", "MOCKMODEL-MIG-1g.300gb"),
                Arguments.of("single", sharing("single", false, res("nvidia.com/gpu", 2)), "gpu.", "2", "time-slicing",
                        "MOCKMODEL-MIG-1g.300gb-SHARED"),
                Arguments.of("single", sharing("single", false, res("nvidia.com/gpu", 2, "nvidia.com/gpu.shared")), "gpu.", "2",
                        "time-slicing", "MOCKMODEL-MIG-1g.300gb"),
                Arguments.of("mixed", sharing("mixed", false, res("nvidia.com/gpu", 2, "nvidia.com/gpu.shared"), res(r, 2)),
                        "mig-1g.300gb.", "2", "time-slicing", "MOCKMODEL-MIG-1g.300gb-SHARED"),
                Arguments.of("mixed", sharing("mixed", false, res(r, 2, r + ".shared")), "mig-1g.300gb.", "2", "time-slicing",
                        "MOCKMODEL-MIG-1g.300gb"));
    }

    @ParameterizedTest
    @MethodSource("migResourceCases")
    void migResourceLabeler(String mig, DevicePluginConfig dp, String p, String replicas, String strategy, String product) {
        Map<String, String> all = labels(gfdMock(mockMigEnabled(Mig.mock(1, 2, 300))), dp);
        SortedMap<String, String> expected = set(p + "count=1", p + "memory=300", p + "multiprocessors=0", p + "slices.gi=1",
                p + "slices.ci=2", p + "engines.copy=0", p + "engines.decoder=0", p + "engines.encoder=0",
                p + "engines.jpeg=0", p + "engines.ofa=0", p + "replicas=" + replicas, p + "sharing-strategy=" + strategy,
                p + "product=" + product);
        SortedMap<String, String> actual = new java.util.TreeMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith(p) && !(p.equals("gpu.") && !expected.containsKey(k))) {
                actual.put(k, v);
            }
        });
        assertEquals(expected, actual);
        assertEquals(mig, all.get("mig.strategy"));
    }

    // internal/lm/nvml_test.go: TestMigCapabilityLabeler
    @ParameterizedTest
    @CsvSource({"F, false", "FF, false", "E, true", "FE, true"})
    void migCapable(String devices, String expected) {
        Gpu[] gpus = devices.chars().mapToObj(c -> c == 'F' ? mockFull() : mockMigEnabled()).toArray(Gpu[]::new);
        assertEquals(expected, labels(gfdMock(gpus), DevicePluginConfig.DEFAULT).get("mig.capable"));
    }

    @Test
    void noDevicesNoNvmlLabels() {
        assertEquals(set(), labels(gfdMock(), DevicePluginConfig.DEFAULT));
    }

    // internal/lm/nvml_test.go: TestSharingLabeler
    @Test
    void mpsCapable() {
        assertEquals("false", labels(gfdMock(mockFull()), DevicePluginConfig.DEFAULT).get("mps.capable"));
        assertEquals("false", labels(gfdMock(mockFull()), sharing("none", false, res("nvidia.com/gpu", 2))).get("mps.capable"));
        // GFD's case "mps with 1 replica" cannot happen here: the config refuses replicas < 2 at load, as the plugin does
        assertEquals("true", labels(gfdMock(mockFull()), sharing("none", true, res("nvidia.com/gpu", 2))).get("mps.capable"));
        // MPS on a MIG-enabled GPU: GFD stops with an error; here only mps.capable is left out
        Map<String, String> mig = labels(gfdMock(mockMigEnabled()), sharing("none", true, res("nvidia.com/gpu", 2)));
        assertFalse(mig.containsKey("mps.capable"), mig.toString());
        assertEquals("MOCKMODEL", mig.get("gpu.product"));
        assertEquals("true", mig.get("mig.capable"));
    }

    // internal/lm/nvml_test.go: TestGPUModeLabeler, classes from the PCI scan
    @ParameterizedTest
    @CsvSource({"0300, graphics", "0302, compute", "0680, unknown", "0302 0302 0302, compute",
            "0300 0300 0300, graphics", "0300 0302 0300, unknown"})
    void gpuMode(String classes, String expected) {
        Gpu[] gpus = java.util.Arrays.stream(classes.split(" ")).map(c -> mockFull().pciClass(c)).toArray(Gpu[]::new);
        assertEquals(expected, labels(gfdMock(gpus), DevicePluginConfig.DEFAULT).get("gpu.mode"));
    }

    // internal/lm/resource_test.go: TestSanitise
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "a space separated string|a-space-separated-string",
            "some(thing)else|somethingelse",
            "some ( thing )else|some-thing-else",
            "NVIDIA-TITAN-X-(Pascal)|NVIDIA-TITAN-X-Pascal",
            "' input  with multiple   spaces   '|input-with-multiple-spaces",
            "some [ / thing / ]else|some-thing-else",
            "some / thing /else|some-thing-else",
            "some-thing.else_new|some-thing.else_new"})
    void sanitise(String in, String out) {
        assertEquals(out, Names.sanitise(in));
    }
}
