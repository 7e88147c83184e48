package io.nodelabeller.deploy;

import io.nodelabeller.source.nvidia.GpuLabels;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.nodelabeller.cli.Cli;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static io.nodelabeller.deploy.Manifests.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * docs/migrating-from-nfd-gfd.md as printed: its commands (the print Job overlay, the jq programs for "before",
 * orphans and rollback) run on a GPU Operator node modelled on the fakes — the DGX A100 tree and the fake NVML for 8 ×
 * A100, NFD's and GFD's labels listed in nfd-master's annotation {@code nfd.node.kubernetes.io/feature-labels}
 * (nfd-master's format: keys in feature.node.kubernetes.io without the prefix, others with it, sorted,
 * comma-separated; pkg/nfd-master/nfd-master.go), the Operator's own labels beside them — and what each step says
 * the output holds is checked.
 */
class MigrationGuideTest {

    private static final Path GUIDE = Path.of("docs/migrating-from-nfd-gfd.md");
    private static final String NFD_LABELS = "nfd.node.kubernetes.io/feature-labels";
    private static final String OWNED = "node-labeller.io/managed-labels";
    private static final String NFD = "feature.node.kubernetes.io/";
    /** An NFD rule's label that the migrated config does not produce (a rule not ported). */
    private static final String UNPORTED = NFD + "legacy-rule.enabled";
    /** What the GPU Operator writes on its GPU nodes itself (gpu-operator state_manager.go, k8s-driver-manager). */
    private static final Map<String, String> OPERATOR = Map.of(
            "nvidia.com/gpu.present", "true",
            "nvidia.com/gpu.deploy.driver", "true",
            "nvidia.com/gpu.deploy.gpu-feature-discovery", "true",
            "nvidia.com/gpu.deploy.device-plugin", "true",
            "nvidia.com/gpu.deploy.client", "true",
            "nvidia.com/mig.config", "all-disabled",
            "nvidia.com/mig.config.state", "success",
            "nvidia.com/gpu-driver-upgrade-state", "upgrade-done");

    @TempDir
    Path tmp;

    /** Where the print Job ran: once for the class, its log shared by the steps that read it. */
    @TempDir
    static Path jobDir;
    private static List<String> jobLog;

    @BeforeAll
    static void needsJqAndTheFakeLibrary() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        boolean jq;
        try {
            jq = new ProcessBuilder("jq", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            jq = false;
        }
        io.nodelabeller.testing.Prerequisites.require(jq, "jq not installed: the migration guide's commands are not run");
    }

    /** The jq program of the guide's command that contains {@code marker}: between {@code jq -r '} and the next quote. */
    private static String jqProgram(String marker) throws IOException {
        String doc = Files.readString(GUIDE);
        int at = doc.indexOf(marker);
        assertTrue(at > 0, "the guide has " + marker);
        int start = doc.lastIndexOf("jq -r '", at) + "jq -r '".length();
        return doc.substring(start, doc.indexOf('\'', start));
    }

    private List<String> jq(String program, String json) throws Exception {
        Path in = Files.writeString(tmp.resolve("node.json"), json);
        Process p = new ProcessBuilder("jq", "-r", program).redirectInput(in.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), err);
        return out.lines().toList();
    }

    /**
     * Step 1's print Job, rendered from the guide's overlay on the shipped Job overlay, run with its own arguments
     * (the ConfigMap's files where it mounts them, the DGX A100 as its host, the fake NVML as the runtime's library):
     * the lines {@code kubectl logs} would show, stderr and stdout together. Run once; every step reads the same log.
     */
    private static synchronized List<String> printJobLog() throws Exception {
        if (jobLog == null) {
            jobLog = runPrintJob(jobDir);
        }
        return jobLog;
    }

    private static List<String> runPrintJob(Path tmp) throws Exception {
        List<HasMetadata> objects = Manifests.renderDocumented(GUIDE, "# kustomization.yaml (print on one node)",
                tmp.resolve("print"));
        Job job = one(objects, Job.class, "node-labeller-once");
        var pod = job.getSpec().getTemplate().getSpec();
        assertEquals("nvidia", pod.getRuntimeClassName());
        Container c = pod.getContainers().get(0);
        assertEquals("all", c.getEnv().stream().filter(e -> e.getName().equals("NVIDIA_VISIBLE_DEVICES")).findFirst()
                .orElseThrow().getValue());
        Path etc = Files.createDirectories(tmp.resolve("etc"));
        one(objects, ConfigMap.class, "node-labeller-config").getData().forEach((k, v) -> write(etc.resolve(k), v));
        Path lib = FakeNvml.nvml().driver("580.95.05").cuda(13000).gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        List<String> args = new ArrayList<>();
        for (String a : c.getArgs()) {
            args.add(a.replace("/etc/node-labeller", etc.toString()).replace("--host-root=/host",
                    "--host-root=" + Hosts.root("gpu-server")));
        }
        assertEquals("print", args.get(0));
        assertTrue(args.contains("--no-timestamp"), args.toString());
        args.add("--nvml-library"); // where the nvidia runtime puts it, the default search path finds it
        args.add(lib.toString());
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        List<String> log = new ArrayList<>(r.err().lines().toList());
        log.addAll(r.out().lines().toList());
        return List.copyOf(log);
    }

    /** The labels in the print Job's log, key to value. */
    private static Map<String, String> producedLabels() throws Exception {
        return labelLines(printJobLog().stream().filter(l -> l.matches("^[a-z0-9.-]+/[^ =]+=.*")).toList());
    }

    private static void write(Path p, String text) {
        try {
            Files.writeString(p, text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * What GPU Feature Discovery writes on this node, as the GPU Operator runs it (privileged, MIG strategy none, no
     * sharing), worked out from GFD's labellers and the node's facts, not from node-labeller's output: the machine
     * from DMI's product_name, sanitised (internal/lm/machine-type.go, resource.go); the driver and CUDA versions as
     * NVML gives them (nvml.go); the GPUs' NVML name, count, memory in MiB, compute capability and family
     * (resource.go); mig.capable for a GPU whose MIG mode answers, mps.capable false without MPS sharing, gpu.mode
     * from the GPUs' PCI class (nvml.go); vgpu.present=false, the privileged vGPU scan finding no vGPU (vgpu.go); no
     * mig.strategy for "none", no clique without fabric.
     */
    static Map<String, String> gfdLabels() throws IOException {
        Map<String, String> gfd = new TreeMap<>();
        Path root = Hosts.root("gpu-server");
        String product = Files.readString(root.resolve("sys/devices/virtual/dmi/id/product_name")).trim();
        gfd.put("nvidia.com/gpu.machine", String.join("-", product.replaceAll("[^A-Za-z0-9\\-_. ]", "").trim().split("\\s+")));
        String driver = "580.95.05";
        String[] parts = driver.split("\\.");
        gfd.put("nvidia.com/cuda.driver.major", parts[0]);
        gfd.put("nvidia.com/cuda.driver.minor", parts[1]);
        gfd.put("nvidia.com/cuda.driver.rev", parts[2]);
        gfd.put("nvidia.com/cuda.driver-version.major", parts[0]);
        gfd.put("nvidia.com/cuda.driver-version.minor", parts[1]);
        gfd.put("nvidia.com/cuda.driver-version.revision", parts[2]);
        gfd.put("nvidia.com/cuda.driver-version.full", driver);
        int cuda = 13000;
        for (String k : List.of("runtime", "runtime-version")) {
            gfd.put("nvidia.com/cuda." + k + ".major", String.valueOf(cuda / 1000));
            gfd.put("nvidia.com/cuda." + k + ".minor", String.valueOf(cuda % 1000 / 10));
        }
        gfd.put("nvidia.com/cuda.runtime-version.full", cuda / 1000 + "." + cuda % 1000 / 10);
        gfd.put("nvidia.com/mig.capable", "true");
        gfd.put("nvidia.com/mps.capable", "false");
        Set<String> classes = new TreeSet<>();
        try (var devices = Files.list(root.resolve("sys/bus/pci/devices"))) {
            for (Path d : devices.toList()) {
                String klass = Files.readString(d.resolve("class")).trim();
                if (Files.readString(d.resolve("vendor")).trim().equals("0x10de") && klass.startsWith("0x03")) {
                    classes.add(klass);
                }
            }
        }
        gfd.put("nvidia.com/gpu.mode", classes.equals(Set.of("0x030200")) ? "compute"
                : classes.equals(Set.of("0x030000")) ? "graphics" : "unknown");
        gfd.put("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB");
        gfd.put("nvidia.com/gpu.count", "8");
        gfd.put("nvidia.com/gpu.replicas", "1");
        gfd.put("nvidia.com/gpu.sharing-strategy", "none");
        gfd.put("nvidia.com/gpu.memory", "81920");
        gfd.put("nvidia.com/gpu.compute.major", "8");
        gfd.put("nvidia.com/gpu.compute.minor", "0");
        gfd.put("nvidia.com/gpu.family", "ampere");
        gfd.put("nvidia.com/vgpu.present", "false");
        gfd.put("nvidia.com/gfd.timestamp", "1789843655");
        return gfd;
    }

    /**
     * The node before the switch: NFD's labels (node-labeller's feature.node.kubernetes.io ones: NFD's own parity is
     * held by its test tables elsewhere) and GFD's, worked out on their own ({@link #gfdLabels}).
     */
    private static ObjectNode operatorNode(Map<String, String> produced, Map<String, String> extraAnnotations)
            throws IOException {
        Map<String, String> labels = new TreeMap<>();
        produced.forEach((k, v) -> {
            if (!k.startsWith("nvidia.com/")) {
                labels.put(k, v);
            }
        });
        labels.putAll(gfdLabels());
        labels.put(UNPORTED, "true");
        String nfdList = labels.keySet().stream().map(k -> k.startsWith(NFD) ? k.substring(NFD.length()) : k).sorted()
                .collect(Collectors.joining(","));
        labels.putAll(OPERATOR);
        labels.put("kubernetes.io/hostname", "dgx-07");
        ObjectMapper m = new ObjectMapper();
        ObjectNode node = m.createObjectNode();
        ObjectNode meta = node.putObject("metadata");
        meta.put("name", "dgx-07");
        ObjectNode l = meta.putObject("labels");
        labels.forEach(l::put);
        ObjectNode a = meta.putObject("annotations");
        a.put(NFD_LABELS, nfdList);
        extraAnnotations.forEach(a::put);
        return node;
    }

    private static Map<String, String> labelLines(List<String> lines) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String l : lines) {
            int eq = l.indexOf('=');
            m.put(l.substring(0, eq), l.substring(eq + 1));
        }
        return m;
    }

    /**
     * Step 1: the diff of "before" (what nfd-master manages on the node) and "after" (the print Job's log, as the
     * guide filters it) shows only what the guide says it may: node-labeller's new per-model labels and the
     * Operator's gpu.present after, the unported rule's label before; no log line, no timestamp.
     */
    @Test
    void stepOnesDiffShowsOnlyWhatTheGuideSaysItMay() throws Exception {
        List<String> log = printJobLog();
        String grep = Manifests.docBlock(GUIDE, "kubectl get node NODE -o json | jq -r '.metadata.annotations[\"nfd.node.kubernetes.io/feature-labels\"] as $nfd")
                .lines().filter(l -> l.contains("logs job/node-labeller-once")).findFirst().orElseThrow();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("grep -E '([^']+)'").matcher(grep);
        assertTrue(m.find(), grep);
        java.util.regex.Pattern labelLine = java.util.regex.Pattern.compile(m.group(1)); // ERE, the same here
        List<String> after = log.stream().filter(l -> labelLine.matcher(l).find()).sorted().toList();
        assertTrue(after.stream().noneMatch(l -> l.contains(" WARN ") || l.contains(" INFO ")), after.toString());
        Map<String, String> produced = labelLines(after);
        assertEquals("NVIDIA-A100-SXM4-80GB", produced.get("nvidia.com/gpu.product"), "the Job saw the GPUs");

        List<String> before = jq(jqProgram("\"nfd.node.kubernetes.io/feature-labels\"] as $nfd"),
                operatorNode(produced, Map.of()).toString()).stream().sorted().toList();
        Set<String> onlyAfter = new TreeSet<>(after);
        onlyAfter.removeAll(before);
        Set<String> onlyBefore = new TreeSet<>(before);
        onlyBefore.removeAll(after);

        assertEquals(Set.of(UNPORTED + "=true", "nvidia.com/vgpu.present=false"), onlyBefore,
                "only the rule not ported, and GFD's vgpu.present (written by node-labeller only with sources.nvidia.vgpu)");
        Set<String> keys = onlyAfter.stream().map(l -> l.substring(0, l.indexOf('='))).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(keys.contains("nvidia.com/gpu.present") && keys.stream().anyMatch(GpuLabels::isBeyondGfd), keys.toString());
        assertEquals(Set.of(), keys.stream().filter(k -> !k.equals("nvidia.com/gpu.present") && !GpuLabels.isBeyondGfd(k))
                .collect(Collectors.toSet()), "nothing else differs");
        assertEquals(OPERATOR.get("nvidia.com/gpu.present"), produced.get("nvidia.com/gpu.present"), "the same value");
        assertTrue(before.stream().noneMatch(l -> l.startsWith("nvidia.com/gfd.timestamp=")
                || l.startsWith("nvidia.com/gpu.deploy.") || l.startsWith("nvidia.com/mig.config")), before.toString());
    }

    /** Step 3: the orphans are nfd-master's keys node-labeller does not list; after step 6 the command prints nothing. */
    @Test
    void stepThreeListsTheOrphansAndNothingOnceNfdsAnnotationIsGone() throws Exception {
        Map<String, String> produced = producedLabels();
        // what the DaemonSet lists once it took over: its labels (with the timestamp, which it writes), not the
        // Operator's gpu.present, which nfd-master does not list and node-labeller leaves as it is
        Set<String> ownedKeys = new TreeSet<>(produced.keySet());
        ownedKeys.add("nvidia.com/gfd.timestamp");
        ownedKeys.remove("nvidia.com/gpu.present");
        String owned = String.join(",", ownedKeys);
        ObjectNode node = operatorNode(produced, Map.of(OWNED, owned));
        String program = jqProgram("($a[\"node-labeller.io/managed-labels\"]");
        // and GFD's vgpu.present=false where node-labeller does not scan for vGPUs (the guide's step 1 says so)
        assertEquals(List.of(UNPORTED, "nvidia.com/vgpu.present"), jq(program, node.toString()));
        ((ObjectNode) node.get("metadata").get("annotations")).remove(NFD_LABELS); // step 6
        assertEquals(List.of(), jq(program, node.toString()));
    }

    /** Rolling back: the command names exactly node-labeller's own new labels, each with the "-" that removes it. */
    @Test
    void rollingBackRemovesExactlyTheLabelsOnlyNodeLabellerWrites() throws Exception {
        Map<String, String> produced = producedLabels();
        ObjectNode node = operatorNode(produced, Map.of());
        ObjectNode labels = (ObjectNode) node.get("metadata").get("labels");
        produced.forEach(labels::put); // node-labeller's labels on the node, its new ones included
        List<String> removed = jq(jqProgram("| . + \"-\"' | xargs -r kubectl label node NODE"), node.toString());
        List<String> want = produced.keySet().stream().filter(GpuLabels::isBeyondGfd).sorted().map(k -> k + "-").toList();
        assertTrue(want.size() > 1, want.toString());
        assertEquals(want, removed);
    }
}
