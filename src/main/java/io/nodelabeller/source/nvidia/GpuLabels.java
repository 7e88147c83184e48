package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.nvml.NvmlSymbol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.nodelabeller.nvml.NvmlSymbol.ATTRIBUTES;
import static io.nodelabeller.nvml.NvmlSymbol.CUDA_COMPUTE_CAPABILITY;
import static io.nodelabeller.nvml.NvmlSymbol.CUDA_DRIVER_VERSION;
import static io.nodelabeller.nvml.NvmlSymbol.DEVICE_COUNT;
import static io.nodelabeller.nvml.NvmlSymbol.DRIVER_VERSION;
import static io.nodelabeller.nvml.NvmlSymbol.GPU_FABRIC_INFO;
import static io.nodelabeller.nvml.NvmlSymbol.MEMORY_INFO;
import static io.nodelabeller.nvml.NvmlSymbol.MIG_DEVICE_HANDLE_BY_INDEX;
import static io.nodelabeller.nvml.NvmlSymbol.MIG_MODE;
import static io.nodelabeller.nvml.NvmlSymbol.NAME;

/**
 * Every {@code nvidia.com/} label node-labeller writes, declared once: key, the labeler that makes it, where its
 * value comes from (NVML calls as {@link NvmlSymbol}s, host files, config keys), an example, its meaning, whether
 * GPU Feature Discovery has it, and its per-model twin ({@code gpu.model.<model>.<field>}) where it has one. The
 * labelers' docs, docs/labels.md, the admission and NodeFeature policies' lists of GPU labels, the migration guide's
 * and the GPU oracle's lists of labels GFD does not have are all made from this table (docs/development.md,
 * "Generated files"). A declaration that cannot hold for every model name fails when the class loads.
 */
public final class GpuLabels {

    /** One declared label; {@code key} without {@code nvidia.com/}; {@code twin} null when it has no per-model twin. */
    record GpuLabel(Class<? extends GpuLabeler> labeler, String key, String source, String from, String exampleKey,
                    String example, String meaning, boolean gfd, Twin twin) {

        LabelDoc doc() {
            LabelDoc.Builder b = LabelDoc.key(Out.PREFIX + key).source(source).from(from);
            return (key.contains("<") ? b.example(Out.PREFIX + exampleKey, example) : b.example(example)).means(meaning);
        }

        /** Its per-model twin. */
        GpuLabel withTwin(String field, Object example, String meaning) {
            return new GpuLabel(labeler, key, source, from, exampleKey, this.example, this.meaning, gfd,
                    new Twin(field, String.valueOf(example), meaning));
        }

        GpuLabel twinLabel() {
            return new GpuLabel(ModelLabeler.class, Names.MODEL_PREFIX + "<model>." + twin.field(), source, from,
                    Names.MODEL_PREFIX + EXAMPLE_MODEL + "." + twin.field(), twin.example(), twin.meaning(), false, null);
        }
    }

    /** A per-model twin: {@code gpu.model.<model>.<field>}, the value of the model's first GPU. */
    record Twin(String field, String example, String meaning) {
    }

    /** The model the per-model examples name. */
    static final String EXAMPLE_MODEL = "Tesla-V100-SXM2-32GB";

    /**
     * The longest field a per-model key can have: {@code gpu.model.<model>.<field>} is at most 63 characters for the
     * longest model part ({@link Names#MODEL_KEY_MAX}), which is fixed because shortening it would rename keys in
     * use. A longer twin needs a shorter field name.
     */
    static final int TWIN_FIELD_MAX = Names.MAX_VALUE - Names.MODEL_PREFIX.length() - Names.MODEL_KEY_MAX - 1;

    private static final String SINGLE = " With mig-strategy single: of the MIG devices instead.";
    private static final String MIXED = "mig-strategy mixed, per profile: ";
    private static final String SHARING = "device plugin config sharing";

    private static final List<GpuLabel> DECLARED = declare();

    private GpuLabels() {
    }

    private static List<GpuLabel> declare() {
        List<GpuLabel> l = new ArrayList<>();
        l.add(new GpuLabel(PresenceLabeler.class, "gpu.present", "pci", NvidiaSource.PCI_DEVICES + "/*/{vendor,class}", null,
                "true", "An NVIDIA GPU (vendor 10de, class 0300 or 0302) is on the PCI bus; needs no NVML.", true, null));
        l.add(new GpuLabel(TimestampLabeler.class, "gfd.timestamp", "nvidia, pci", "process start time", null, "1763804014",
                "Unix seconds of the agent's start, on nodes with an NVIDIA GPU; left out with --no-timestamp or "
                        + "flags.gfd.noTimestamp.", true, null));
        l.add(gfd(MachineLabeler.class, "gpu.machine", String.join(" (else ", NvidiaSource.PRODUCT_NAME_FILES) + ")",
                "DGXA100-920-23687-2530-000", "The machine's DMI product name, sanitised; unknown when unreadable."));
        String driver = DRIVER_VERSION.symbol();
        String cuda = CUDA_DRIVER_VERSION.symbol();
        l.add(gfd(VersionLabeler.class, "cuda.driver.major", driver, "580", "Driver version, first part (older name)."));
        l.add(gfd(VersionLabeler.class, "cuda.driver.minor", driver, "159", "Driver version, second part (older name)."));
        l.add(gfd(VersionLabeler.class, "cuda.driver.rev", driver, "04",
                "Driver version, third part, empty when there is none (older name)."));
        l.add(gfd(VersionLabeler.class, "cuda.driver-version.major", driver, "580", "Driver version, first part."));
        l.add(gfd(VersionLabeler.class, "cuda.driver-version.minor", driver, "159", "Driver version, second part."));
        l.add(gfd(VersionLabeler.class, "cuda.driver-version.revision", driver, "04",
                "Driver version, third part, empty when there is none."));
        l.add(gfd(VersionLabeler.class, "cuda.driver-version.full", driver, "580.159.04", "Driver version as the driver reports it."));
        l.add(gfd(VersionLabeler.class, "cuda.runtime.major", cuda, "13", "Major CUDA version the driver supports (older name)."));
        l.add(gfd(VersionLabeler.class, "cuda.runtime.minor", cuda, "0", "Minor CUDA version the driver supports (older name)."));
        l.add(gfd(VersionLabeler.class, "cuda.runtime-version.major", cuda, "13", "Major CUDA version the driver supports."));
        l.add(gfd(VersionLabeler.class, "cuda.runtime-version.minor", cuda, "0", "Minor CUDA version the driver supports."));
        l.add(gfd(VersionLabeler.class, "cuda.runtime-version.full", cuda, "13.0",
                "<major>.<minor> CUDA version the driver supports."));
        l.add(gfd(MigCapabilityLabeler.class, "mig.capable", MIG_MODE.symbol(), "true", "Whether some GPU supports MIG."));
        l.add(gfd(SharingLabeler.class, "mps.capable", SHARING + ".mps; " + MIG_MODE, "false",
                "true when the device plugin shares GPUs with MPS and no GPU has MIG enabled."));
        String cc = CUDA_COMPUTE_CAPABILITY.symbol();
        l.add(gfd(ResourceLabeler.class, "gpu.count", NvmlSymbol.names(DEVICE_COUNT, NAME), "8",
                "GPUs of the labelled model (with several models: the one with the most GPUs)." + SINGLE)
                .withTwin("count", 4, "GPUs of this model on the node, MIG-enabled ones included. <model> is the GPU name "
                        + "sanitised as in gpu.product; a name longer than " + Names.MODEL_KEY_MAX + " characters is cut and "
                        + "ends with 8 hex digits of its SHA-256."));
        l.add(gfd(ResourceLabeler.class, "gpu.replicas", SHARING + ".*.resources (nvidia.com/gpu)", "1",
                "Replicas per GPU: 1 unless shared, 0 when MIG is enabled." + SINGLE)
                .withTwin("replicas", 1, "What nvidia.com/gpu gives per GPU of this model: 1 unless shared, 0 when all its "
                        + "GPUs have MIG enabled."));
        l.add(gfd(ResourceLabeler.class, "gpu.sharing-strategy", SHARING, "none", "none, time-slicing or mps." + SINGLE));
        l.add(gfd(ResourceLabeler.class, "gpu.product", NAME.symbol(), "NVIDIA-A100-SXM4-80GB",
                "The GPU name, sanitised; -SHARED appended when shared and not renamed." + SINGLE));
        l.add(gfd(ResourceLabeler.class, "gpu.memory", MEMORY_INFO.symbol(), "81920", "Memory of one GPU, MiB." + SINGLE)
                .withTwin("memory", 32768, "Memory of one GPU of this model, MiB."));
        l.add(gfd(ResourceLabeler.class, "gpu.family", cc, "ampere",
                "Architecture of the compute capability (volta, ampere, hopper...).")
                .withTwin("family", "volta", "Architecture of this model."));
        l.add(gfd(ResourceLabeler.class, "gpu.compute.major", cc, "8", "CUDA compute capability, major.")
                .withTwin("compute.major", 7, "CUDA compute capability, major."));
        l.add(gfd(ResourceLabeler.class, "gpu.compute.minor", cc, "0", "CUDA compute capability, minor.")
                .withTwin("compute.minor", 0, "CUDA compute capability, minor."));
        l.add(gfd(ResourceLabeler.class, "mig.strategy", "MIG_STRATEGY / --mig-strategy, else the device plugin config's "
                + "flags.migStrategy", "mixed", "single or mixed: how the device plugin advertises MIG devices; absent with none."));
        String attrs = ATTRIBUTES + " ";
        for (MigLabels.Attr a : MigLabels.ATTRIBUTES) {
            l.add(gfd(ResourceLabeler.class, "gpu." + a.label(), attrs + a.field(), a.example(),
                    "mig-strategy single: " + a.meaning() + " of one MIG device."));
        }
        l.add(mixed("count", MIG_DEVICE_HANDLE_BY_INDEX.symbol(), "7",
                "MIG devices of the profile on the node (<profile>: 1g.10gb, 1c.3g.40gb, 1g.10gb.me for 1g.10gb+me...)."));
        l.add(mixed("replicas", SHARING + ".*.resources (nvidia.com/mig-<profile>)", "1", "replicas of one MIG device: 1 unless shared."));
        l.add(mixed("sharing-strategy", SHARING, "none", "none, time-slicing or mps."));
        l.add(mixed("product", NAME + " of the parent GPU", "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
                "<GPU name>-MIG-<profile>, -SHARED appended when shared and not renamed."));
        l.add(mixed("memory", attrs + "memorySizeMB (else " + MEMORY_INFO + ")", "9728", "memory of one MIG device, MiB."));
        for (MigLabels.Attr a : MigLabels.ATTRIBUTES) {
            l.add(mixed(a.label(), attrs + a.field(), a.example(), a.meaning() + " of one MIG device."));
        }
        l.add(new GpuLabel(ModelLabeler.class, "gpu.models", Out.SOURCE, NAME.symbol(), null, "2",
                "How many GPU models the node has (1 on most nodes).", false, null));
        l.add(new GpuLabel(ModeLabeler.class, "gpu.mode", "nvidia, pci", NvidiaSource.PCI_DEVICES + "/*/class of vendor 10de",
                null, "compute", "compute (all NVIDIA GPUs are 3D controllers, class 0302), graphics (all VGA, 0300) or unknown.",
                true, null));
        l.add(gfd(CliqueLabeler.class, "gpu.clique", GPU_FABRIC_INFO.symbol(), "4a8c1e52-39d2-4f6b-a0e7-5c3b9d21f860.32766",
                "<clusterUuid>.<cliqueId> of the NVLink fabric, when every fabric-attached GPU (state completed) agrees."));
        l.add(gfd(VgpuLabeler.class, "vgpu.present", VgpuLabeler.FROM, "true", "true: the node is a VM with an NVIDIA vGPU; "
                + "false: a GPU node without one. Only with sources.nvidia.vgpu, which needs CAP_SYS_ADMIN (docs/gpu.md)."));
        l.add(gfd(VgpuLabeler.class, "vgpu.host-driver-version", VgpuLabeler.FROM + ", host driver record", "550.54.16",
                "The vGPU manager's driver version on the hypervisor host."));
        l.add(gfd(VgpuLabeler.class, "vgpu.host-driver-branch", VgpuLabeler.FROM + ", host driver record", "r550_40",
                "The vGPU manager's driver branch on the hypervisor host."));
        List<GpuLabel> all = List.copyOf(l);
        check(all);
        return all;
    }

    private static GpuLabel gfd(Class<? extends GpuLabeler> labeler, String key, String from, String example, String meaning) {
        return new GpuLabel(labeler, key, Out.SOURCE, from, null, example, meaning, true, null);
    }

    private static GpuLabel mixed(String field, String from, String example, String meaning) {
        return new GpuLabel(ResourceLabeler.class, "mig-<profile>." + field, Out.SOURCE, from, "mig-1g.10gb." + field,
                example, MIXED + meaning, true, null);
    }

    /** Fails on a twin whose key would not fit for the longest model part, and on a key declared twice. */
    static void check(List<GpuLabel> labels) {
        List<String> keys = new ArrayList<>();
        for (GpuLabel g : labels) {
            keys.add(g.key());
            if (g.twin() != null) {
                if (g.twin().field().length() > TWIN_FIELD_MAX) {
                    throw new IllegalStateException("the per-model twin of nvidia.com/" + g.key() + ", field '"
                            + g.twin().field() + "', has " + g.twin().field().length() + " characters: gpu.model.<model>."
                            + "<field> fits in 63 for every model only with at most " + TWIN_FIELD_MAX + "; give the twin a "
                            + "shorter field name");
                }
                keys.add(g.twinLabel().key());
            }
        }
        if (keys.stream().distinct().count() != keys.size()) {
            throw new IllegalStateException("a GPU label is declared twice: " + keys);
        }
    }

    /** Every declared label, twins included, in the order docs/labels.md lists them. */
    static List<GpuLabel> all() {
        List<GpuLabel> out = new ArrayList<>(DECLARED);
        // the twins follow gpu.models, in their base labels' order
        int at = out.indexOf(out.stream().filter(g -> g.key().equals("gpu.models")).findFirst().orElseThrow()) + 1;
        out.addAll(at, DECLARED.stream().filter(g -> g.twin() != null).map(GpuLabel::twinLabel).toList());
        return out;
    }

    /** The docs of {@code labeler}'s labels. */
    static List<LabelDoc> docs(Class<? extends GpuLabeler> labeler) {
        return all().stream().filter(g -> g.labeler() == labeler).map(GpuLabel::doc).toList();
    }

    /** The declared labels with a per-model twin: base key (without {@code nvidia.com/}) → the twin's field. */
    public static Map<String, String> twins() {
        return TWINS;
    }

    private static final Map<String, String> TWINS = DECLARED.stream().filter(g -> g.twin() != null)
            .collect(Collectors.toUnmodifiableMap(GpuLabel::key, g -> g.twin().field()));

    /** The twin of {@code key} for {@code model} ({@code gpu.model.<model>.<field>}); null when it has none. */
    static String twinKey(String key, String model) {
        String field = TWINS.get(key);
        return field == null ? null : Names.MODEL_PREFIX + model + "." + field;
    }

    /** The docs of the labels GPU Feature Discovery does not have (node-labeller's own). */
    public static List<LabelDoc> beyondGfd() {
        return all().stream().filter(g -> !g.gfd()).map(GpuLabel::doc).toList();
    }

    /** Whether {@code key} (with or without {@code nvidia.com/}) is one of the labels GFD does not have. */
    public static boolean isBeyondGfd(String key) {
        String full = key.startsWith(Out.PREFIX) ? key : Out.PREFIX + key;
        return BEYOND_GFD.stream().anyMatch(p -> p.matcher(full).matches());
    }

    private static final List<java.util.regex.Pattern> BEYOND_GFD = beyondGfd().stream().map(LabelDoc::pattern).toList();
}
