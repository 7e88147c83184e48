package io.nodelabeller.source.dra;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.source.nvidia.DescribedGpuLabels;
import io.nodelabeller.source.nvidia.NvidiaFeatures;
import io.nodelabeller.source.nvidia.NvidiaSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GPU Feature Discovery's labels from the {@code dra.gpu} and {@code dra.mig} features, for nodes whose GPUs only the
 * NVIDIA DRA driver describes (no GFD, no device plugin): the devices are rendered into the nvidia source's vocabulary
 * as NVML would have reported them, and {@link DescribedGpuLabels} — the NVML labels' own labelers — label them.
 *
 * <ul>
 *   <li>A GPU is a {@code gpu} device, or the parent ({@code parentUUID}) of {@code mig} devices: the DRA driver
 *       publishes a GPU with MIG enabled as its MIG devices alone, so such a GPU's memory is not known.</li>
 *   <li>GPUs are numbered as NVML numbers them, in PCI bus order ({@code pciBusID}).</li>
 *   <li>{@code productName} is NVML's name; {@code cudaComputeCapability} ({@code 8.0.0}) its compute capability;
 *       {@code driverVersion} ({@code 580.159.4}: the DRA driver's semantic version of {@code 580.159.04}) gives the
 *       major and minor only; {@code cudaDriverVersion} ({@code 13.0.0}) the CUDA version; {@code memory} the total.</li>
 *   <li>A MIG device's {@code profile} is its profile as NVIDIA's tools print it; its capacities are its GPU-instance
 *       profile's ({@code multiprocessors}, {@code copyEngines}, {@code decoders}, {@code encoders},
 *       {@code jpegEngines}, {@code ofaEngines}, {@code memory}); its slice counts are those of its profile's name
 *       ({@code 1c.2g.20gb}: one compute slice of two). A compute-instance profile's ({@code <n>c.}) multiprocessors are
 *       not its GPU instance's, so they are left out.</li>
 * </ul>
 * Where the install also runs its GPU agent, these labels yield to the agent's (docs/gpu.md, "GPUs described by
 * ResourceSlices").
 */
public final class DraLabeler implements Labeler {

    private static final Pattern SLICES = Pattern.compile("^(?:(\\d+)c\\.)?(\\d+)g\\.");
    private static final BigInteger MIB = BigInteger.valueOf(1024 * 1024);

    private final DescribedGpuLabels described = new DescribedGpuLabels();

    @Override
    public List<Label> labels(Features features) {
        List<Instance> gpus = features.instances(DraSource.NAME + "." + DraSource.GPU);
        List<Instance> migs = features.instances(DraSource.NAME + "." + DraSource.MIG);
        if (gpus.isEmpty() && migs.isEmpty()) {
            return List.of();
        }
        TreeSet<String> slices = new TreeSet<>();
        gpus.forEach(g -> slices.add(g.get("slice")));
        migs.forEach(m -> slices.add(m.get("slice")));
        Features nvidia = asNvml(gpus, migs);
        Features withPci = Features.union(List.of(nvidia, pciOnly(features)));
        return described.labels(withPci, DraSource.NAME, "ResourceSlice " + String.join(", ", slices));
    }

    /** The physical GPUs and MIG devices of the slices, as the nvidia source would have found them with NVML. */
    static Features asNvml(List<Instance> gpus, List<Instance> migs) {
        // one physical GPU per UUID: a gpu device, or the parent of mig devices (first of them for its facts)
        Map<String, Instance> physical = new LinkedHashMap<>();
        Map<String, List<Instance>> migsOf = new LinkedHashMap<>();
        gpus.forEach(g -> physical.putIfAbsent(g.get("uuid"), g));
        for (Instance m : migs) {
            physical.putIfAbsent(m.get("parentUUID"), m);
            migsOf.computeIfAbsent(m.get("parentUUID"), k -> new ArrayList<>()).add(m);
        }
        List<Map.Entry<String, Instance>> ordered = new ArrayList<>(physical.entrySet());
        ordered.sort(Comparator.comparing((Map.Entry<String, Instance> e) -> String.valueOf(e.getValue().get("pciBusID")))
                .thenComparing(e -> String.valueOf(e.getKey())));
        Features.Builder b = Features.builder(NvidiaSource.NAME).instances(NvidiaFeatures.GPU).instances(NvidiaFeatures.MIG);
        Instance first = ordered.get(0).getValue();
        b.attributes(NvidiaFeatures.NVML, new NvidiaFeatures.Nvml(true, null, null, first.get("driverVersion"),
                cudaVersion(first.get("cudaDriverVersion")), ordered.size()).attributes());
        for (int i = 0; i < ordered.size(); i++) {
            Instance d = ordered.get(i).getValue();
            boolean mig = DraSource.MIG.equals(d.get("type"));
            int[] cc = versionParts(d.get("cudaComputeCapability"));
            b.instance(NvidiaFeatures.GPU, NvidiaFeatures.Gpu.of(i).name(d.get("productName")).uuid(ordered.get(i).getKey())
                    .memoryTotal(mig ? null : amount(d.get("memory")))
                    .computeCapability(cc == null ? null : cc[0], cc == null ? null : cc[1])
                    .pci(d.get("pciBusID"), null).mig(mig, mig ? Boolean.TRUE : null).build().attributes());
            List<Instance> own = new ArrayList<>(migsOf.getOrDefault(ordered.get(i).getKey(), List.of()));
            own.sort(Comparator.comparing(m -> String.valueOf(m.get("device"))));
            for (int j = 0; j < own.size(); j++) {
                Instance m = own.get(j);
                b.instance(NvidiaFeatures.MIG, new NvidiaFeatures.Mig(i, j, null, m.get("uuid"), amount(m.get("memory")),
                        migAttributes(m), m.get("profile"), null, null).attributes());
            }
        }
        return b.build();
    }

    /** nvmlDeviceGetAttributes_v2's fields of a MIG device, as far as its slice gives them. */
    static Map<String, Long> migAttributes(Instance m) {
        Map<String, Long> a = new TreeMap<>();
        String profile = m.get("profile") == null ? "" : m.get("profile");
        Matcher slices = SLICES.matcher(profile);
        if (slices.find()) {
            long gi = Long.parseLong(slices.group(2));
            a.put("gpuInstanceSliceCount", gi);
            a.put("computeInstanceSliceCount", slices.group(1) == null ? gi : Long.parseLong(slices.group(1)));
            if (slices.group(1) == null) {
                putAmount(a, "multiprocessorCount", m.get("multiprocessors"));
            }
        }
        putAmount(a, "sharedCopyEngineCount", m.get("copyEngines"));
        putAmount(a, "sharedDecoderCount", m.get("decoders"));
        putAmount(a, "sharedEncoderCount", m.get("encoders"));
        putAmount(a, "sharedJpegCount", m.get("jpegEngines"));
        putAmount(a, "sharedOfaCount", m.get("ofaEngines"));
        Long memory = amount(m.get("memory"));
        if (memory != null) {
            a.put("memorySizeMB", BigInteger.valueOf(memory).divide(MIB).longValue());
        }
        return a;
    }

    private static void putAmount(Map<String, Long> a, String field, String value) {
        Long v = amount(value);
        if (v != null) {
            a.put(field, v);
        }
    }

    private static Long amount(String s) {
        try {
            return s == null ? null : Long.valueOf(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** NVML's CUDA driver version integer ({@code 13000} for 13.0) from the slice's version ({@code 13.0.0}). */
    static Integer cudaVersion(String version) {
        int[] v = versionParts(version);
        return v == null ? null : v[0] * 1000 + v[1] * 10;
    }

    /** Major and minor of a version {@code X.Y[.Z]}; null when it is not one. */
    static int[] versionParts(String version) {
        if (version == null) {
            return null;
        }
        String[] p = version.split("\\.");
        try {
            return p.length < 2 ? null : new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The PCI scan's features of {@code features}: what {@code gpu.mode} is made of. */
    private static Features pciOnly(Features features) {
        Features.Builder b = Features.builder("pci");
        features.instances("pci.device").forEach(i -> b.instance("device", i.attributes()));
        return b.build();
    }

    /** The GPU labels a slice gives, as documented for NVML, their facts from the slices' devices. */
    @Override
    public List<LabelDoc> docs() {
        return described.docs(DraSource.NAME, "ResourceSlice devices (dra.gpu, dra.mig) where no GPU agent runs");
    }
}
