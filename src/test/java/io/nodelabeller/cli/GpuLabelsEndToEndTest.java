package io.nodelabeller.cli;

import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The whole chain for GPU labels: the fake libnvidia-ml (C, built by the test phase) → the real JNA binding →
 * the nvidia source → the GPU labelers → {@code print}. Expected values are GFD's for the same NVML answers
 * (GFD's internal/lm labelers), on the DGX A100 fake host (8 × A100-SXM4-80GB, class 0302).
 */
class GpuLabelsEndToEndTest {

    @TempDir
    Path tmp;

    @BeforeAll
    static void needsFakeLibrary() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
    }

    private Map<String, String> print(FakeNvml nvml, String... extra) {
        return printWith(Map.of(), nvml, extra);
    }

    /** {@code print} with {@code env} as the process environment. */
    private Map<String, String> printWith(Map<String, String> env, FakeNvml nvml, String... extra) {
        Path lib = nvml.install(tmp.resolve("lib"));
        List<String> args = new ArrayList<>(List.of("print", "--no-timestamp",
                "--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", lib.toString(),
                "--sources", "pci,nvidia,system"));
        args.addAll(List.of(extra));
        Cli.Result r = Cli.runWith(env, args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        Map<String, String> nvidia = new TreeMap<>();
        r.out().lines().filter(l -> l.startsWith("nvidia.com/")).forEach(l -> {
            int eq = l.indexOf('=');
            nvidia.put(l.substring("nvidia.com/".length(), eq), l.substring(eq + 1));
        });
        return nvidia;
    }

    private static Map<String, String> common() {
        Map<String, String> m = new TreeMap<>();
        m.put("cuda.driver.major", "580");
        m.put("cuda.driver.minor", "159");
        m.put("cuda.driver.rev", "04");
        m.put("cuda.driver-version.major", "580");
        m.put("cuda.driver-version.minor", "159");
        m.put("cuda.driver-version.revision", "04");
        m.put("cuda.driver-version.full", "580.159.04");
        m.put("cuda.runtime.major", "13");
        m.put("cuda.runtime.minor", "0");
        m.put("cuda.runtime-version.major", "13");
        m.put("cuda.runtime-version.minor", "0");
        m.put("cuda.runtime-version.full", "13.0");
        m.put("gpu.machine", "DGXA100-920-23687-2530-000");
        m.put("gpu.mode", "compute");
        m.put("gpu.present", "true");
        m.put("mig.capable", "true");
        m.put("mps.capable", "false");
        return m;
    }

    @Test
    void eightFullGpus() {
        Map<String, String> want = common();
        want.put("gpu.count", "8");
        want.put("gpu.product", "NVIDIA-A100-SXM4-80GB");
        want.put("gpu.memory", "81920");
        want.put("gpu.family", "ampere");
        want.put("gpu.compute.major", "8");
        want.put("gpu.compute.minor", "0");
        want.put("gpu.replicas", "1");
        want.put("gpu.sharing-strategy", "none");
        // beyond GFD: the node's one model
        want.put("gpu.models", "1");
        String model = "gpu.model.NVIDIA-A100-SXM4-80GB.";
        want.put(model + "count", "8");
        want.put(model + "memory", "81920");
        want.put(model + "family", "ampere");
        want.put(model + "compute.major", "8");
        want.put(model + "compute.minor", "0");
        want.put(model + "replicas", "1");
        assertEquals(want, print(FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb())));
    }

    @Test
    void timeSlicingFromTheDevicePluginConfig() throws Exception {
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, """
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """);
        Map<String, String> got = print(FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()), "--device-plugin-config", dp.toString());
        assertEquals("4", got.get("gpu.replicas"));
        assertEquals("time-slicing", got.get("gpu.sharing-strategy"));
        assertEquals("NVIDIA-A100-SXM4-80GB-SHARED", got.get("gpu.product"));
        assertEquals("8", got.get("gpu.count"));
    }

    @Test
    void migSingleStrategy() throws Exception {
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags:\n  migStrategy: single\n");
        FakeNvml.Gpu mig = FakeNvml.a100_80gb().migEnabled().migAll(FakeNvml.A100_80GB.get("1g.10gb"), 7);
        Map<String, String> got = print(FakeNvml.nvml().gpus(8, mig), "--device-plugin-config", dp.toString());
        assertEquals("single", got.get("mig.strategy"));
        assertEquals("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb", got.get("gpu.product"));
        assertEquals("56", got.get("gpu.count"));
        assertEquals("1", got.get("gpu.slices.gi"));
        assertEquals("1", got.get("gpu.slices.ci"));
        assertEquals("14", got.get("gpu.multiprocessors"));
        assertEquals("9728", got.get("gpu.memory"));
        assertEquals("1", got.get("gpu.replicas"));
    }

    /**
     * The GPU Operator sets MIG_STRATEGY on GFD and the device plugin from its ClusterPolicy (mig.strategy, default
     * single), and there the environment overrides the config file (k8s-device-plugin api/config/v1/flags.go: a flag
     * set on the command line or by its variable wins): the MIG-enabled DGX gets GFD's labels for the strategy the
     * Operator gives, whatever the file says; GFD_MIG_STRATEGY before MIG_STRATEGY, --mig-strategy before both.
     */
    @Test
    void theMigStrategyOfTheEnvironmentOrTheCommandLineWinsOverTheFile() throws Exception {
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags:\n  migStrategy: none\n");
        FakeNvml.Gpu mig = FakeNvml.a100_80gb().migEnabled().migAll(FakeNvml.A100_80GB.get("1g.10gb"), 7);
        FakeNvml dgx = FakeNvml.nvml().gpus(8, mig);
        Map<String, String> file = print(dgx, "--device-plugin-config", dp.toString());
        assertEquals("NVIDIA-A100-SXM4-80GB", file.get("gpu.product"));
        assertEquals("8", file.get("gpu.count"));
        assertEquals(null, file.get("mig.strategy"));
        Map<String, String> operator = printWith(Map.of("MIG_STRATEGY", "single"), dgx, "--device-plugin-config", dp.toString());
        assertEquals("single", operator.get("mig.strategy"));
        assertEquals("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb", operator.get("gpu.product"));
        assertEquals("56", operator.get("gpu.count"));
        assertEquals("9728", operator.get("gpu.memory"));
        assertEquals("1", operator.get("gpu.replicas"));
        assertEquals("mixed", printWith(Map.of("MIG_STRATEGY", "single", "GFD_MIG_STRATEGY", "mixed"), dgx,
                "--device-plugin-config", dp.toString()).get("mig.strategy"));
        assertEquals("single", printWith(Map.of("MIG_STRATEGY", "mixed"), dgx, "--device-plugin-config", dp.toString(),
                "--mig-strategy", "single").get("mig.strategy"));
        // without a file at all, as the Operator's GFD runs
        assertEquals("single", printWith(Map.of("MIG_STRATEGY", "single"), dgx).get("mig.strategy"));
    }

    /** A value GFD would refuse is a usage error naming where it came from. */
    @Test
    void aMigStrategyOrFailOnInitErrorGfdWouldRefuseIsAUsageError() {
        Cli.Result env = Cli.runWith(Map.of("MIG_STRATEGY", "Single"), "print", "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(2, env.code());
        assertTrue(env.err().contains("MIG_STRATEGY: expected one of none, single, mixed, got 'Single'"), env.err());
        Cli.Result flag = Cli.run("print", "--host-root", Hosts.root("cloud-vm").toString(), "--mig-strategy", "all");
        assertEquals(2, flag.code());
        assertTrue(flag.err().contains("--mig-strategy: expected one of none, single, mixed, got 'all'"), flag.err());
        Cli.Result fail = Cli.runWith(Map.of("FAIL_ON_INIT_ERROR", "yes"), "print", "--host-root", Hosts.root("cloud-vm").toString());
        assertEquals(2, fail.code());
        assertTrue(fail.err().contains("FAIL_ON_INIT_ERROR: expected true or false, got 'yes'"), fail.err());
    }

    @Test
    void migMixedStrategyGivesPerProfileLabels() throws Exception {
        Path dp = tmp.resolve("dp.yaml");
        Files.writeString(dp, "version: v1\nflags:\n  migStrategy: mixed\n");
        FakeNvml.Gpu mig = FakeNvml.a100_80gb().migEnabled()
                .mig(0, FakeNvml.A100_80GB.get("3g.40gb"))
                .mig(1, FakeNvml.A100_80GB.get("1g.10gb+me"))
                .mig(2, FakeNvml.A100_80GB.get("3g.40gb"), 1);
        Map<String, String> got = print(FakeNvml.nvml().gpu(mig), "--device-plugin-config", dp.toString());
        assertEquals("mixed", got.get("mig.strategy"));
        assertEquals("1", got.get("mig-3g.40gb.count"));
        assertEquals("NVIDIA-A100-SXM4-80GB-MIG-3g.40gb", got.get("mig-3g.40gb.product"));
        assertEquals("1", got.get("mig-1g.10gb.me.count"));
        assertEquals("1", got.get("mig-1c.3g.40gb.count"));
        assertEquals("1", got.get("mig-1c.3g.40gb.slices.ci"));
        assertEquals("3", got.get("mig-1c.3g.40gb.slices.gi"));
        for (String profile : List.of("3g.40gb", "1g.10gb.me", "1c.3g.40gb")) {
            long perProfile = got.keySet().stream().filter(k -> k.startsWith("mig-" + profile + ".")).count();
            assertEquals(13, perProfile, profile + " in " + got);
        }
    }

    @ParameterizedTest
    @CsvSource({"7,0,volta", "7,5,turing", "8,0,ampere", "8,9,ada-lovelace", "9,0,hopper", "10,0,blackwell",
            "12,0,blackwell"})
    void familyFromComputeCapability(int major, int minor, String family) {
        Map<String, String> got = print(FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb().compute(major, minor)));
        assertEquals(family, got.get("gpu.family"));
        assertEquals(String.valueOf(major), got.get("gpu.compute.major"));
        assertEquals(String.valueOf(minor), got.get("gpu.compute.minor"));
    }

    @Test
    void twoPartDriverVersionAndMemoryNotSupported() {
        Map<String, String> got = print(FakeNvml.nvml().driver("470.82")
                .gpus(8, FakeNvml.a100_80gb().rc("nvmlDeviceGetMemoryInfo", 3)));
        assertEquals("470", got.get("cuda.driver.major"));
        assertEquals("82", got.get("cuda.driver.minor"));
        assertEquals("", got.get("cuda.driver.rev"));
        assertEquals("", got.get("cuda.driver-version.revision"));
        assertEquals("470.82", got.get("cuda.driver-version.full"));
        assertTrue(!got.containsKey("gpu.memory"), got.toString());
        assertEquals("NVIDIA-A100-SXM4-80GB", got.get("gpu.product"));
    }

    @Test
    void nvmlInitFailureLeavesOnlyPresence() {
        Map<String, String> got = print(FakeNvml.nvml().rc("nvmlInit_v2", 9).gpus(8, FakeNvml.a100_80gb()));
        assertEquals(Map.of("gpu.present", "true"), got);
    }

    @Test
    void oneLostGpuDoesNotHideTheOthers() {
        FakeNvml nvml = FakeNvml.nvml().gpus(3, FakeNvml.a100_80gb())
                .gpu(FakeNvml.a100_80gb().rc("nvmlDeviceGetHandleByIndex_v2", 15));
        Map<String, String> got = print(nvml);
        assertEquals("3", got.get("gpu.count"));
        assertEquals("NVIDIA-A100-SXM4-80GB", got.get("gpu.product"));
        assertTrue(got.containsKey("cuda.driver-version.full"));
    }

    /** Every label {@code print} gives with {@code env} and {@code args} on the DGX A100 with 8 GPUs. */
    private Map<String, String> allLabels(Map<String, String> env, String... extra) {
        Path lib = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        List<String> args = new ArrayList<>(List.of("print", "--host-root", Hosts.root("gpu-server").toString(),
                "--nvml-library", lib.toString(), "--sources", "pci,nvidia,system,kernel"));
        args.addAll(List.of(extra));
        Cli.Result r = Cli.runWith(env, args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        return r.labels();
    }

    /**
     * The two agents of a GPU node split the labels of one agent: the host agent everything but GFD's NVML labels
     * (gpu.present from PCI, no NVML loaded: the fake library sees no call), the GPU agent GFD's labels but gpu.present.
     */
    @Test
    void theHostAndGpuRolesSplitTheLabelsOfOneAgent() {
        Map<String, String> all = allLabels(Map.of());
        Path lib = tmp.resolve("lib").resolve("libnvidia-ml.so.1");
        int callsOfAll = FakeNvml.calls(lib).size();
        assertTrue(callsOfAll > 0);
        Map<String, String> host = allLabels(Map.of(), "--role", "host");
        assertEquals(callsOfAll, FakeNvml.calls(lib).size(), "the host agent never loads NVML");
        int callsBefore = FakeNvml.calls(lib).size();
        Map<String, String> gpu = allLabels(Map.of("NODE_LABELLER_ROLE", "gpu"));
        assertTrue(FakeNvml.calls(lib).size() > callsBefore, "the GPU agent asks NVML");

        assertEquals(List.of("nvidia.com/gpu.present"), host.keySet().stream().filter(k -> k.startsWith("nvidia.com/")).toList());
        assertTrue(host.containsKey("feature.node.kubernetes.io/kernel-version.full"));
        assertTrue(gpu.keySet().stream().allMatch(k -> k.startsWith("nvidia.com/")), gpu.toString());
        assertFalse(gpu.containsKey("nvidia.com/gpu.present"));
        assertEquals("NVIDIA-A100-SXM4-80GB", gpu.get("nvidia.com/gpu.product"));
        Map<String, String> union = new TreeMap<>(host);
        union.putAll(gpu);
        union.remove("nvidia.com/gfd.timestamp");
        Map<String, String> one = new TreeMap<>(all);
        one.remove("nvidia.com/gfd.timestamp");
        assertEquals(one, union, "together, the labels of one agent");
        assertTrue(gpu.containsKey("nvidia.com/gfd.timestamp") && !host.containsKey("nvidia.com/gfd.timestamp"),
                "the timestamp says GPU Feature Discovery's labels were written: the GPU agent's");
    }

    @Test
    void anUnknownRoleIsAUsageErrorNamingWhereItCameFrom() {
        Cli.Result flag = Cli.runWith(Map.of(), "print", "--role", "nvml", "--sources", "system");
        assertEquals(2, flag.code());
        assertTrue(flag.err().contains("--role: expected one of all, host, gpu, got 'nvml'"), flag.err());
        Cli.Result env = Cli.runWith(Map.of("NODE_LABELLER_ROLE", "agent"), "print", "--sources", "system");
        assertEquals(2, env.code());
        assertTrue(env.err().contains("NODE_LABELLER_ROLE: expected one of all, host, gpu, got 'agent'"), env.err());
    }
}
