package io.nodelabeller.cli;

import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every label the agent really produces on the fake hosts is documented: its key matches a documented key pattern
 * of the same source ({@link LabelDoc#matches}). A new label without a {@code docs()} entry fails here. The GPU
 * scenarios (fake NVML) together must produce every documented {@code nvidia.com/} label, so that MIG, sharing,
 * clique and timestamp docs are checked against real output too.
 */
class LabelDocsCoverageTest {

    private static final List<LabelDoc> DOCS = Catalog.docs().values().stream().flatMap(List::stream).toList();

    @TempDir
    Path tmp;

    /** One label as {@code explain} shows it. */
    private record Shown(String source, String value) {
    }

    /** key → source and value of every label {@code explain} shows, checked against {@code print}'s keys. */
    private static Map<String, Shown> labels(String... args) {
        List<String> explainArgs = new ArrayList<>(List.of("explain"));
        explainArgs.addAll(List.of(args));
        Cli.Result explain = Cli.run(explainArgs.toArray(String[]::new));
        assertEquals(0, explain.code(), explain.err());
        Map<String, Shown> out = new LinkedHashMap<>();
        String label = null;
        for (String line : explain.out().lines().toList()) {
            if (line.startsWith("    source: ")) {
                int eq = label.indexOf('=');
                out.put(label.substring(0, eq), new Shown(line.substring("    source: ".length()), label.substring(eq + 1)));
            } else if (!line.startsWith(" ") && !line.startsWith("#")) {
                label = line;
            }
        }
        List<String> printArgs = new ArrayList<>(List.of("print"));
        printArgs.addAll(List.of(args));
        Cli.Result print = Cli.run(printArgs.toArray(String[]::new));
        assertEquals(0, print.code(), print.err());
        Set<String> printed = new LinkedHashSet<>(print.out().lines().map(l -> l.substring(0, l.indexOf('='))).toList());
        assertEquals(printed, out.keySet(), "print and explain show the same labels");
        return out;
    }

    /** The labels no doc of their source describes, as "key (source)". */
    private static List<String> undocumented(Map<String, Shown> labels) {
        List<String> missing = new ArrayList<>();
        labels.forEach((key, shown) -> {
            if (DOCS.stream().noneMatch(d -> d.source().equals(shown.source()) && d.matches(key))) {
                missing.add(key + " (" + shown.source() + ")");
            }
        });
        return missing;
    }

    /** Every fake host tree, a new one included without listing it here. */
    @ParameterizedTest
    @MethodSource("io.nodelabeller.testing.Hosts#all")
    void everyLabelOfAFakeHostWithoutNvmlIsDocumented(String host) {
        Map<String, Shown> got = labels("--host-root", Hosts.root(host).toString(),
                "--nvml-library", tmp.resolve("none/libnvidia-ml.so.1").toString());
        assertEquals(List.of(), undocumented(got), "labels on " + host + " without a LabelDoc: add them to the labeler's docs()");
    }

    @Test
    void aKeyOfAnotherSourceOrWithoutAPatternIsUndocumented() {
        Map<String, Shown> labels = linked(
                "nvidia.com/gpu.count", "pci",
                "feature.node.kubernetes.io/pci-new.thing", "pci",
                "feature.node.kubernetes.io/pci-0302_10de.present", "pci");
        assertEquals(List.of("nvidia.com/gpu.count (pci)", "feature.node.kubernetes.io/pci-new.thing (pci)"),
                undocumented(labels));
    }

    private static Map<String, Shown> linked(String... keyAndSource) {
        Map<String, Shown> m = new LinkedHashMap<>();
        for (int i = 0; i < keyAndSource.length; i += 2) {
            m.put(keyAndSource[i], new Shown(keyAndSource[i + 1], "true"));
        }
        return m;
    }

    @Test
    void everyGpuLabelOfTheFakeNvmlScenariosIsDocumentedAndEveryNvidiaDocIsProduced() throws Exception {
        Map<String, Map<String, Shown>> scenarios = new LinkedHashMap<>();
        String fabric = "0123456789abcdef0123456789abcdef";
        scenarios.put("8 full GPUs on one NVLink clique", gpuServer("full",
                FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb().fabric(fabric, 0, 32766, 3)), null));
        FakeNvml.Gpu sevenSmall = FakeNvml.a100_80gb().migEnabled().migAll(FakeNvml.A100_80GB.get("1g.10gb"), 7);
        scenarios.put("MIG single", gpuServer("single", FakeNvml.nvml().gpus(8, sevenSmall),
                "version: v1\nflags:\n  migStrategy: single\n"));
        FakeNvml.Gpu mixed = FakeNvml.a100_80gb().migEnabled()
                .mig(0, FakeNvml.A100_80GB.get("3g.40gb"))
                .mig(1, FakeNvml.A100_80GB.get("1g.10gb+me"))
                .mig(2, FakeNvml.A100_80GB.get("3g.40gb"), 1);
        scenarios.put("MIG mixed, time-sliced", gpuServer("mixed", FakeNvml.nvml().gpu(mixed).gpus(7, FakeNvml.a100_80gb()),
                "version: v1\nflags:\n  migStrategy: mixed\nsharing:\n  timeSlicing:\n    resources:\n"
                        + "    - name: nvidia.com/mig-3g.40gb\n      replicas: 2\n"));
        scenarios.put("MPS", gpuServer("mps", FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()),
                "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"));
        scenarios.put("NVML init fails", gpuServer("noinit", FakeNvml.nvml().rc("nvmlInit_v2", 9), null));
        scenarios.put("vGPU guest", vgpuGuest());

        Set<LabelDoc> produced = new LinkedHashSet<>();
        scenarios.forEach((name, got) -> {
            assertEquals(List.of(), undocumented(got), name + ": labels without a LabelDoc: add them to the labeler's docs()");
            got.forEach((key, shown) -> DOCS.stream().filter(d -> d.source().equals(shown.source()) && d.matches(key))
                    .forEach(produced::add));
        });
        assertEquals(new Shown("nvidia", "true"), scenarios.get("MPS").get("nvidia.com/mps.capable"),
                "the MPS scenario shares with MPS");
        // the dra labeler's (from ResourceSlices, which print has none of): ResourceSliceLabelsTest
        List<String> neverSeen = DOCS.stream().filter(d -> d.key().startsWith("nvidia.com/")
                        && !d.source().equals(io.nodelabeller.source.dra.DraSource.NAME) && !produced.contains(d))
                .map(LabelDoc::key).toList();
        assertEquals(List.of(), neverSeen, "documented nvidia.com labels no fake-NVML scenario produces");
    }

    /** A VM with a GRID T4 vGPU (the vgpu-guest overlay) and sources.nvidia.vgpu on: the vgpu.* labels. */
    private Map<String, Shown> vgpuGuest() throws Exception {
        Path dir = tmp.resolve("vgpu");
        Path host = Hosts.layered("cloud-vm", "vgpu-guest", dir.resolve("host"));
        Path lib = FakeNvml.nvml().driver("460.32.03").cuda(11020).gpu(FakeNvml.gpu("GRID T4-16Q").memoryMiB(16384)
                .compute(7, 5).pciDeviceId(0x1EB810DE, 0x130F10DE).busId("00000000:00:06.0")).install(dir.resolve("lib"));
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "sources:\n  nvidia:\n    vgpu: true\n");
        Map<String, Shown> got = labels("--host-root", host.toString(), "--nvml-library", lib.toString(),
                "--config", config.toString());
        assertEquals(new Shown("nvidia", "true"), got.get("nvidia.com/vgpu.present"), "the guest has a vGPU");
        return got;
    }

    private Map<String, Shown> gpuServer(String name, FakeNvml nvml, String devicePluginConfig) throws Exception {
        Path dir = tmp.resolve(name);
        Path lib = nvml.install(dir.resolve("lib"));
        List<String> args = new ArrayList<>(List.of("--host-root", Hosts.root("gpu-server").toString(),
                "--nvml-library", lib.toString()));
        if (devicePluginConfig != null) {
            Path dp = dir.resolve("dp.yaml");
            Files.writeString(dp, devicePluginConfig);
            args.addAll(List.of("--device-plugin-config", dp.toString()));
        }
        return labels(args.toArray(String[]::new));
    }
}
