package io.nodelabeller.source.nvidia;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.cli.Cli;
import io.nodelabeller.config.Config;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.NodeAffinity;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Nodes with more than one GPU model, through the real NVML binding and the fake libnvidia-ml: the per-model labels
 * (docs/gpu.md, "Nodes with more than one GPU model") on the nodes users have asked about — V100 16 GB beside 32 GB
 * (GFD PR #13), GeForce 3080 + 3090 + 4090 (gpu-feature-discovery #66), a DGX Station's display beside its A100s
 * (gpu-feature-discovery #27), MIG on one of two models — while GFD's {@code gpu.*} labels stay as GFD makes them.
 * Memory sizes are what NVML reports on those cards.
 */
class GpuModelsTest {

    private static final String P = "nvidia.com/";
    private static final LabelValidity VALIDITY = Catalog.labelValidity(Config.DEFAULT.core());

    static final FakeNvml.Gpu V100_16 = FakeNvml.gpu("Tesla V100-SXM2-16GB").memoryMiB(16384).compute(7, 0);
    static final FakeNvml.Gpu V100_32 = FakeNvml.gpu("Tesla V100-SXM2-32GB").memoryMiB(32768).compute(7, 0);

    @TempDir
    Path tmp;

    @BeforeAll
    static void needsFakeLibrary() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
    }

    /** The nvidia.com labels {@code print} gives for {@code nvml} on the gpu-server tree, each a valid label. */
    private Map<String, String> print(String name, FakeNvml nvml, String devicePluginConfig) throws Exception {
        Path dir = tmp.resolve(name);
        List<String> args = new ArrayList<>(List.of("print", "--no-timestamp", "--host-root",
                Hosts.root("gpu-server").toString(), "--nvml-library", nvml.install(dir.resolve("lib")).toString(),
                "--sources", "pci,nvidia"));
        if (devicePluginConfig != null) {
            Files.writeString(dir.resolve("dp.yaml"), devicePluginConfig);
            args.addAll(List.of("--device-plugin-config", dir.resolve("dp.yaml").toString()));
        }
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        Map<String, String> out = new TreeMap<>();
        r.out().lines().filter(l -> l.startsWith(P)).forEach(l -> {
            String key = l.substring(0, l.indexOf('='));
            String value = l.substring(l.indexOf('=') + 1);
            assertNull(VALIDITY.problem(key, value), l);
            out.put(key.substring(P.length()), value);
        });
        return out;
    }

    /** The per-model labels of {@code all}, by key without "nvidia.com/". */
    private static Map<String, String> models(Map<String, String> all) {
        Map<String, String> out = new TreeMap<>();
        all.forEach((k, v) -> {
            if (GpuTesting.beyondGfd(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    private static Map<String, String> model(String key, int count, int memory, String family, int major, int minor,
                                             int replicas) {
        String m = "gpu.model." + key + ".";
        return Map.of(m + "count", String.valueOf(count), m + "memory", String.valueOf(memory), m + "family", family,
                m + "compute.major", String.valueOf(major), m + "compute.minor", String.valueOf(minor),
                m + "replicas", String.valueOf(replicas));
    }

    @SafeVarargs
    private static Map<String, String> node(int models, Map<String, String>... each) {
        Map<String, String> out = new TreeMap<>();
        out.put("gpu.models", String.valueOf(models));
        for (Map<String, String> m : each) {
            out.putAll(m);
        }
        return out;
    }

    private Map<String, String> v100Mixed() throws Exception {
        return print("v100", FakeNvml.nvml().gpus(4, V100_16).gpus(4, V100_32), null);
    }

    @Test
    void v100With16And32GbEachModelCountedAndGfdsLabelsAsBefore() throws Exception {
        Map<String, String> l = v100Mixed();
        assertEquals(node(2, model("Tesla-V100-SXM2-16GB", 4, 16384, "volta", 7, 0, 1),
                model("Tesla-V100-SXM2-32GB", 4, 32768, "volta", 7, 0, 1)), models(l));
        // GFD's labels describe one model, as before: the one with the most GPUs, a tie broken by name
        assertEquals("Tesla-V100-SXM2-16GB", l.get("gpu.product"));
        assertEquals("4", l.get("gpu.count"));
        assertEquals("16384", l.get("gpu.memory"));
    }

    @Test
    void geforce3080And3090And4090() throws Exception {
        Map<String, String> l = print("geforce", FakeNvml.nvml()
                .gpu(FakeNvml.gpu("NVIDIA GeForce RTX 3080").memoryMiB(10240).compute(8, 6))
                .gpu(FakeNvml.gpu("NVIDIA GeForce RTX 3090").memoryMiB(24576).compute(8, 6))
                .gpu(FakeNvml.gpu("NVIDIA GeForce RTX 4090").memoryMiB(24564).compute(8, 9)), null);
        assertEquals(node(3, model("NVIDIA-GeForce-RTX-3080", 1, 10240, "ampere", 8, 6, 1),
                model("NVIDIA-GeForce-RTX-3090", 1, 24576, "ampere", 8, 6, 1),
                model("NVIDIA-GeForce-RTX-4090", 1, 24564, "ada-lovelace", 8, 9, 1)), models(l));
    }

    /** The DGX Station's display GPU is no compute GPU: GFD (go-nvlib) skips it, and so do the models. */
    @Test
    void dgxStationDisplayIsNotAModel() throws Exception {
        FakeNvml station = FakeNvml.nvml().gpus(2, FakeNvml.a100_80gb())
                .gpu(FakeNvml.gpu("DGX Display").memoryMiB(4096).compute(7, 5)).gpus(2, FakeNvml.a100_80gb());
        Map<String, String> l = print("station", station, null);
        assertEquals(node(1, model("NVIDIA-A100-SXM4-80GB", 4, 81920, "ampere", 8, 0, 1)), models(l));
        assertEquals("4", l.get("gpu.count"));
        assertEquals("NVIDIA-A100-SXM4-80GB", l.get("gpu.product"));
    }

    /**
     * MIG mixed on the A100, none on the H100: the A100's GPU gives no nvidia.com/gpu (replicas 0; its MIG devices are
     * the resources, with GFD's mig-* labels), the H100 one each. With mig-strategy single the node is not a valid
     * single layout (GFD's -MIG-INVALID), and the models are still described.
     */
    @Test
    void migOnOneOfTwoModels() throws Exception {
        FakeNvml nvml = FakeNvml.nvml().gpu(FakeNvml.a100_80gb().migEnabled()
                        .mig(0, FakeNvml.A100_80GB.get("3g.40gb")).mig(1, FakeNvml.A100_80GB.get("3g.40gb")))
                .gpu(FakeNvml.h100_80gb());
        Map<String, String> mixed = print("mixed", nvml, "version: v1\nflags:\n  migStrategy: mixed\n");
        assertEquals(node(2, model("NVIDIA-A100-SXM4-80GB", 1, 81920, "ampere", 8, 0, 0),
                model("NVIDIA-H100-80GB-HBM3", 1, 81559, "hopper", 9, 0, 1)), models(mixed));
        assertEquals("2", mixed.get("mig-3g.40gb.count"));
        Map<String, String> single = print("single", nvml, "version: v1\nflags:\n  migStrategy: single\n");
        assertEquals(models(mixed), models(single));
        assertTrue(single.get("gpu.product").endsWith("-MIG-INVALID"), single.toString());
    }

    /**
     * Time-slicing of nvidia.com/gpu applies to every model's GPUs; a {@code resources.gpus} pattern that would give
     * the 32 GB cards a resource of their own changes nothing, since the device plugin ignores it
     * (DisableResourceNamingInConfig, k8s-device-plugin api/config/v1/config.go): the labels say what it advertises.
     */
    @Test
    void sharingAppliesToEveryModelAndARenamedResourceChangesNothing() throws Exception {
        String shared = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n";
        FakeNvml nvml = FakeNvml.nvml().gpus(4, V100_16).gpus(4, V100_32);
        Map<String, String> plain = print("shared", nvml, shared);
        assertEquals(node(2, model("Tesla-V100-SXM2-16GB", 4, 16384, "volta", 7, 0, 2),
                model("Tesla-V100-SXM2-32GB", 4, 32768, "volta", 7, 0, 2)), models(plain));
        Map<String, String> renamed = print("renamed", nvml,
                shared + "resources:\n  gpus:\n  - pattern: \"*32GB*\"\n    name: v100-32gb\n");
        assertEquals(plain, renamed);
    }

    /**
     * "A node with at least one 32 GB V100", as docs/gpu.md writes it for a pod, evaluated with the scheduler's
     * semantics on the five nodes above: only the mixed V100 node. GFD's {@code gpu.product} cannot say it there.
     */
    @Test
    void theDocumentedSelectorMatchesOnlyTheNodeWithA32GbV100() throws Exception {
        String doc = Files.readString(Path.of("docs/gpu.md"));
        int section = doc.indexOf("## Nodes with more than one GPU model");
        assertTrue(section > 0, "docs/gpu.md has the section");
        int start = doc.indexOf("```yaml\n", section) + "```yaml\n".length();
        Pod pod = Serialization.unmarshal(doc.substring(start, doc.indexOf("```", start)), Pod.class);
        List<NodeSelectorTerm> terms = pod.getSpec().getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();

        Map<String, Map<String, String>> nodes = new LinkedHashMap<>();
        nodes.put("v100 16+32", prefixed(v100Mixed()));
        nodes.put("v100 16 only", prefixed(print("v100-16", FakeNvml.nvml().gpus(8, V100_16), null)));
        nodes.put("a100", prefixed(print("a100", FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()), null)));
        nodes.put("geforce", prefixed(print("rtx", FakeNvml.nvml()
                .gpu(FakeNvml.gpu("NVIDIA GeForce RTX 3090").memoryMiB(24576).compute(8, 6)), null)));
        nodes.put("no gpu", Map.of());
        Map<String, Boolean> matched = new LinkedHashMap<>();
        nodes.forEach((name, labels) -> matched.put(name, NodeAffinity.matches(labels, terms)));
        assertEquals(Map.of("v100 16+32", true, "v100 16 only", false, "a100", false, "geforce", false, "no gpu", false),
                matched);

        NodeSelectorTerm byProduct = new NodeSelectorTermBuilder().withMatchExpressions(new NodeSelectorRequirementBuilder()
                .withKey(P + "gpu.product").withOperator("In").withValues("Tesla-V100-SXM2-32GB").build()).build();
        assertFalse(NodeAffinity.matches(nodes.get("v100 16+32"), List.of(byProduct)),
                "gpu.product names the 16 GB model on the mixed node: it cannot select the 32 GB card");
    }

    private static Map<String, String> prefixed(Map<String, String> labels) {
        Map<String, String> out = new TreeMap<>();
        labels.forEach((k, v) -> out.put(P + k, v));
        return out;
    }

    /** A name longer than a key can hold gives one stable, shortened key per model, within 63 characters. */
    @Test
    void aLongModelNameIsShortenedTheSameWayEveryTime() {
        String a = Names.modelKey("NVIDIA RTX PRO 6000 Blackwell Server Edition with a very long marketing suffix A");
        String b = Names.modelKey("NVIDIA RTX PRO 6000 Blackwell Server Edition with a very long marketing suffix B");
        assertTrue(a.length() <= Names.MODEL_KEY_MAX, a);
        assertTrue(a.matches("NVIDIA-RTX-PRO-6000-Blackwell-[0-9a-f]{8}"), a);
        assertFalse(a.equals(b), "two long names that begin alike stay apart");
        assertEquals(a, Names.modelKey("NVIDIA RTX PRO 6000 Blackwell Server Edition with a very long marketing suffix A"));
        assertTrue(("gpu.model." + a + ".compute.major").length() <= 63);
        assertEquals("Tesla-V100-SXM2-32GB", Names.modelKey("Tesla V100-SXM2-32GB"));
        assertEquals("", Names.modelKey("(*)"));
    }
}
