package io.nodelabeller.testing;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.nvidia.NvidiaFeatures;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.function.UnaryOperator;

/**
 * A GPU node described the way one talks about it ("8 × A100-40GB, MIG 1g.5gb ×7 on each, driver 550.54.15"),
 * turned into the features the nvidia and pci sources produce, written with the nvidia source's own
 * vocabulary ({@link NvidiaFeatures}). The same layouts can feed a
 * fake NVML library, so a label test and an NVML test can share their nodes.
 *
 * @param nvmlError null when NVML works; otherwise the error of an unavailable NVML
 * @param machine   DMI product name, null when unreadable
 * @param gpus      GPUs in index order
 * @param otherPci  further PCI devices as "vendor:class" (e.g. a BMC's VGA "1a03:0300")
 */
public record GpuLayout(String nvmlError, String driverVersion, Integer cudaVersion, String machine, List<Gpu> gpus,
                        List<String> otherPci) {

    private static final long MIB = 1024L * 1024;

    /**
     * One GPU: NVML's values by name ({@code nvml}; index, UUID and PCI bus id are given by its place in the layout),
     * its MIG devices, {@code pciClass} null = the PCI scan does not see it, {@code error} set = NVML cannot query it.
     */
    public record Gpu(NvidiaFeatures.Gpu nvml, List<Mig> migs, String pciClass, String error) {

        /** A full GPU (MIG-capable when {@code migCapable}), a 3D controller (class 0302). */
        public static Gpu of(String name, long memoryMiB, int ccMajor, int ccMinor) {
            return new Gpu(NvidiaFeatures.Gpu.of(0).name(name).memoryTotal(memoryMiB * MIB)
                    .computeCapability(ccMajor, ccMinor).build(), List.of(), "0302", null);
        }

        public String name() {
            return nvml.name();
        }

        /** Any NVML value, by name: {@code gpu.nvml(v -> v.numaNode(1L))}. */
        public Gpu nvml(UnaryOperator<NvidiaFeatures.Gpu.Builder> change) {
            return new Gpu(change.apply(nvml.toBuilder()).build(), migs, pciClass, error);
        }

        public Gpu withMigCapable() {
            return nvml(v -> v.mig(true, false));
        }

        /** MIG enabled with these MIG devices (implies MIG-capable). */
        public Gpu mig(Mig... devices) {
            return new Gpu(nvml.toBuilder().mig(true, true).build(), List.of(devices), pciClass, error);
        }

        /** MIG devices reported while MIG is disabled (the GFD test "MIG disabled with MIG devices"). */
        public Gpu migDevicesWithoutMig(Mig... devices) {
            return new Gpu(nvml.toBuilder().mig(nvml.migCapable(), false).build(), List.of(devices), pciClass, error);
        }

        /** Memory in MiB; null: the memory query failed. */
        public Gpu memory(Long mib) {
            return nvml(v -> v.memoryTotal(mib == null ? null : mib * MIB));
        }

        /** The compute capability; a null major: the query failed. */
        public Gpu cc(Integer major, Integer minor) {
            return nvml(v -> v.computeCapability(major, major == null ? null : minor));
        }

        public Gpu pciClass(String cls) {
            return new Gpu(nvml, migs, cls, error);
        }

        public Gpu failing(String err) {
            return new Gpu(nvml, migs, pciClass, err);
        }

        /** Attached to an NVLink fabric: cluster UUID, clique ID, state 3 (COMPLETED). */
        public Gpu fabric(String clusterUuid, int cliqueId) {
            return nvml(v -> v.fabric(new NvidiaFeatures.Fabric(clusterUuid, (long) cliqueId, 3, null)));
        }

        /** {@code n} copies of this GPU. */
        public Gpu[] times(int n) {
            Gpu[] out = new Gpu[n];
            Arrays.fill(out, this);
            return out;
        }
    }

    /** One MIG device: its profile as NVIDIA tools print it, memory, and nvmlDeviceGetAttributes_v2 values. */
    public record Mig(String profile, long memoryMiB, Map<String, Integer> attrs) {

        private static final Pattern PROFILE = Pattern.compile("(?:(\\d+)c\\.)?(\\d+)g\\.\\d+gb.*");

        /** A MIG device of {@code profile} ({@code 1g.5gb}, {@code 1c.3g.20gb}, {@code 1g.10gb+me}), slices from the name. */
        public static Mig of(String profile, long memoryMiB, int multiprocessors) {
            Matcher m = PROFILE.matcher(profile);
            if (!m.matches()) {
                throw new IllegalArgumentException(profile);
            }
            int gi = Integer.parseInt(m.group(2));
            int ci = m.group(1) == null ? gi : Integer.parseInt(m.group(1));
            Map<String, Integer> a = new LinkedHashMap<>();
            a.put("multiprocessorCount", multiprocessors);
            a.put("gpuInstanceSliceCount", gi);
            a.put("computeInstanceSliceCount", ci);
            a.put("sharedCopyEngineCount", gi);
            a.put("sharedDecoderCount", gi / 2);
            a.put("sharedEncoderCount", 0);
            a.put("sharedJpegCount", gi / 7);
            a.put("sharedOfaCount", gi / 7);
            a.put("memorySizeMB", (int) memoryMiB);
            return new Mig(profile, memoryMiB, a);
        }

        /**
         * GFD's mock MIG device {@code NewMigDevice(gi, ci, gb)}: named {@code <gi>g.<gb>gb}, memory = gb, slices
         * gi/ci, every other attribute 0.
         */
        public static Mig mock(int gi, int ci, int gb) {
            Map<String, Integer> a = new LinkedHashMap<>();
            a.put("multiprocessorCount", 0);
            a.put("gpuInstanceSliceCount", gi);
            a.put("computeInstanceSliceCount", ci);
            for (String e : List.of("sharedCopyEngineCount", "sharedDecoderCount", "sharedEncoderCount",
                    "sharedJpegCount", "sharedOfaCount")) {
                a.put(e, 0);
            }
            a.put("memorySizeMB", gb);
            return new Mig(gi + "g." + gb + "gb", gb, a);
        }

        public Mig with(String attr, int value) {
            Map<String, Integer> a = new LinkedHashMap<>(attrs);
            a.put(attr, value);
            return new Mig(profile, memoryMiB, a);
        }
    }

    /** A node whose NVML works, with this driver and CUDA version (e.g. "550.54.15", 12040). */
    public static GpuLayout node(String driverVersion, int cudaVersion, Gpu... gpus) {
        return new GpuLayout(null, driverVersion, cudaVersion, "DGX A100", List.of(gpus), List.of());
    }

    /** GFD's test node: driver "400.300", CUDA 8.0, machine "product-name". */
    public static GpuLayout gfdMock(Gpu... gpus) {
        return new GpuLayout(null, "400.300", 8000, "product-name", List.of(gpus), List.of());
    }

    /** GFD's {@code NewFullGPU()}: MOCKMODEL, 300 MiB, CC 8.0, no PCI class (gpu.mode unknown). */
    public static Gpu mockFull() {
        return Gpu.of("MOCKMODEL", 300, 8, 0).pciClass(null);
    }

    /** GFD's {@code NewMigEnabledDevice(migs...)}: MOCKMODEL, MIG enabled, CC 0.0. */
    public static Gpu mockMigEnabled(Mig... migs) {
        return Gpu.of("MOCKMODEL", 300, 0, 0).pciClass(null).mig(migs);
    }

    public GpuLayout withGpus(Gpu... more) {
        List<Gpu> all = new ArrayList<>(gpus);
        all.addAll(List.of(more));
        return new GpuLayout(nvmlError, driverVersion, cudaVersion, machine, all, otherPci);
    }

    public GpuLayout nvmlUnavailable(String error) {
        return new GpuLayout(error, driverVersion, cudaVersion, machine, gpus, otherPci);
    }

    public GpuLayout machine(String productName) {
        return new GpuLayout(nvmlError, driverVersion, cudaVersion, productName, gpus, otherPci);
    }

    public GpuLayout driver(String version) {
        return new GpuLayout(nvmlError, version, cudaVersion, machine, gpus, otherPci);
    }

    public GpuLayout otherPci(String... vendorClass) {
        return new GpuLayout(nvmlError, driverVersion, cudaVersion, machine, gpus, List.of(vendorClass));
    }

    /** The features the nvidia and pci sources would report for this node. */
    public Features features() {
        return nvidiaFeatures().merge(pciFeatures());
    }

    /** The pci source's {@code pci.device} instances: the GPUs with a PCI class, then {@link #otherPci}. */
    public Features pciFeatures() {
        Features.Builder pci = Features.builder("pci").instances("device").origin("device", "/sys/bus/pci/devices");
        for (Gpu g : gpus) {
            if (g.pciClass() != null) {
                pci.instance("device", Map.of("vendor", "10de", "class", g.pciClass(), "device", "20b0",
                        "subsystem_vendor", "10de", "subsystem_device", "134f"));
            }
        }
        for (String vc : otherPci) {
            String[] p = vc.split(":");
            pci.instance("device", Map.of("vendor", p[0], "class", p[1], "device", "2000"));
        }
        return pci.build();
    }

    /** The nvidia source's features (what NVML answered), in the source's own vocabulary ({@link NvidiaFeatures}). */
    public Features nvidiaFeatures() {
        Features.Builder b = Features.builder("nvidia");
        if (nvmlError != null) {
            return b.attributes(NvidiaFeatures.NVML, NvidiaFeatures.Nvml.unavailable(nvmlError, null).attributes())
                    .origin(NvidiaFeatures.NVML, "nvmlInit_v2").build();
        }
        b.attributes(NvidiaFeatures.NVML, new NvidiaFeatures.Nvml(true, null, null, driverVersion, cudaVersion,
                        gpus.size()).attributes())
                .origin(NvidiaFeatures.NVML, "nvmlInit_v2, nvmlSystemGetDriverVersion, nvmlSystemGetCudaDriverVersion");
        if (machine != null) {
            b.attribute(NvidiaFeatures.MACHINE, NvidiaFeatures.PRODUCT_NAME, machine)
                    .origin(NvidiaFeatures.MACHINE, "/sys/class/dmi/id/product_name");
        }
        b.instances(NvidiaFeatures.GPU).instances(NvidiaFeatures.MIG)
                .origin(NvidiaFeatures.GPU, "nvmlDeviceGetHandleByIndex_v2 and per-device queries");
        for (int i = 0; i < gpus.size(); i++) {
            Gpu g = gpus.get(i);
            if (g.error() != null) {
                b.instance(NvidiaFeatures.GPU, NvidiaFeatures.Gpu.failed(i, g.error(), 15).attributes());
                continue;
            }
            b.instance(NvidiaFeatures.GPU, g.nvml().toBuilder().index(i)
                    .uuid(String.format("GPU-%08x-0000-0000-0000-%012x", g.name().hashCode(), i))
                    .pci(String.format("00000000:%02x:00.0", 7 + i), "20b010de").build().attributes());
            for (int m = 0; m < g.migs().size(); m++) {
                Mig mig = g.migs().get(m);
                Map<String, Long> attrs = new LinkedHashMap<>();
                mig.attrs().forEach((k, v) -> attrs.put(k, (long) v));
                b.instance(NvidiaFeatures.MIG, new NvidiaFeatures.Mig(i, m, g.name() + " MIG " + mig.profile(), null,
                        mig.memoryMiB() * MIB, attrs, mig.profile(), null, null).attributes());
            }
        }
        return b.build();
    }
}
