package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.NvidiaPci;
import io.nodelabeller.nvml.Nvml;
import io.nodelabeller.nvml.NvmlDevice;
import io.nodelabeller.nvml.NvmlDevice.Attributes;
import io.nodelabeller.nvml.NvmlDevice.GpuInstanceProfile;
import io.nodelabeller.nvml.NvmlException;
import io.nodelabeller.nvml.NvmlLibrary;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;
import io.nodelabeller.source.SourceFailure;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * NVIDIA GPUs through NVML (docs/gpu.md): {@code nvidia.nvml} (status, driver, CUDA, count),
 * {@code nvidia.gpu} and {@code nvidia.mig} instances, {@code nvidia.machine}. Beyond the contract, a GPU's
 * {@code fabric.status} (the fabric registration's own return code) is given with its other fabric values. Each discovery opens its own NVML
 * session (init … shutdown), so a driver that comes up later is found on the next cycle.
 *
 * <p>A missing library, a missing symbol or a failing {@code nvmlInit_v2} is a normal answer (status
 * {@code unavailable}), not a failure of the source; a failing {@code nvmlDeviceGetCount_v2} after a good init is one
 * (the previous labels are kept). One GPU or MIG device that cannot be queried gets an
 * {@code error} attribute and a warning; the others are still reported. A call answering NOT_SUPPORTED just
 * leaves its attribute out; any other failing call also warns.
 */
public final class NvidiaSource implements Source {

    /** GFD's machine-type file, then where its symbolic link points (for host copies that lost the link). */
    static final List<String> PRODUCT_NAME_FILES = List.of("/sys/class/dmi/id/product_name",
            "/sys/devices/virtual/dmi/id/product_name");

    static final String NVML_ORIGIN = "nvmlInit_v2, nvmlSystemGetDriverVersion, nvmlSystemGetCudaDriverVersion, "
            + "nvmlDeviceGetCount_v2";
    static final String GPU_ORIGIN = "nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName, nvmlDeviceGetUUID, "
            + "nvmlDeviceGetMemoryInfo, nvmlDeviceGetCudaComputeCapability, nvmlDeviceGetPciInfo_v3, "
            + "nvmlDeviceGetMigMode, nvmlDeviceGetGpuFabricInfo, nvmlDeviceGetNumaNodeId";
    static final String MIG_ORIGIN = "nvmlDeviceGetMaxMigDeviceCount, nvmlDeviceGetMigDeviceHandleByIndex, "
            + "nvmlDeviceGetName, nvmlDeviceGetUUID, nvmlDeviceGetMemoryInfo, nvmlDeviceGetAttributes_v2; profile from "
            + "nvmlDeviceGetGpuInstanceProfileInfo and the parent's nvmlDeviceGetMemoryInfo";

    static final String PCI_DEVICES = "/sys/bus/pci/devices";

    private final String library;

    public NvidiaSource(Options options) {
        this.library = options.nvmlLibrary();
    }

    @Override
    public String name() {
        return "nvidia";
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws Exception {
        Features.Builder b = Features.builder(name());
        for (String file : PRODUCT_NAME_FILES) {
            Optional<String> product = host.readTrimmed(file).filter(s -> !s.isEmpty());
            if (product.isPresent()) {
                b.attribute("machine", "product_name", product.get());
                b.origin("machine", host.path(file).toString());
                break;
            }
        }

        Nvml nvml;
        try {
            nvml = Nvml.open(library);
        } catch (NvmlException e) {
            b.attribute("nvml", "status", "unavailable");
            b.attribute("nvml", "error", e.getMessage());
            b.attribute("nvml", "errorCode", Integer.toString(e.code()));
            String loaded = library == null || library.isBlank() ? NvmlLibrary.DEFAULT_NAME : library;
            b.origin("nvml", e.call() != null ? e.call() : "loading " + loaded);
            if (nvidiaGpuOnPci(host)) {
                // The GPUs are there and NVML cannot say what they are (driver reloading, being upgraded): that is
                // uncertainty, not a discovery that the GPU labels are gone. Failing keeps the earlier ones.
                throw new SourceFailure("NVML unavailable on a node with an NVIDIA GPU: " + e.getMessage(), b.build());
            }
            return b.build();
        }
        try (nvml) {
            b.attribute("nvml", "status", "ok");
            optional(nvml::driverVersion, "driver version", warnings)
                    .ifPresent(v -> b.attribute("nvml", "driverVersion", v));
            optional(nvml::cudaDriverVersion, "CUDA driver version", warnings)
                    .ifPresent(v -> b.attribute("nvml", "cudaDriverVersion", Integer.toString(v)));
            int count = nvml.deviceCount();
            b.attribute("nvml", "deviceCount", Integer.toString(count));
            b.origin("nvml", NVML_ORIGIN + " (" + nvml.library().name() + ")");
            b.instances("gpu").origin("gpu", GPU_ORIGIN);
            b.instances("mig").origin("mig", MIG_ORIGIN);
            for (int i = 0; i < count; i++) {
                gpu(nvml, i, b, warnings);
            }
        }
        return b.build();
    }

    /** An NVIDIA display or 3D controller (vendor 10de, class 0300 or 0302) in {@code /sys/bus/pci/devices}. */
    static boolean nvidiaGpuOnPci(HostFs host) {
        for (String dev : host.listOrEmpty(PCI_DEVICES)) {
            String vendor = sysfsId(host, PCI_DEVICES + "/" + dev + "/vendor");
            String cls = sysfsId(host, PCI_DEVICES + "/" + dev + "/class");
            if (NvidiaPci.isGpu(vendor, cls.length() > 4 ? cls.substring(0, 4) : cls)) {
                return true;
            }
        }
        return false;
    }

    /** A sysfs id file ("0x10de", "0x030200") without its 0x, lower-cased; empty when unreadable. */
    private static String sysfsId(HostFs host, String path) {
        String v = host.readTrimmed(path).orElse("").toLowerCase(Locale.ROOT);
        return v.startsWith("0x") ? v.substring(2) : v;
    }

    private void gpu(Nvml nvml, int index, Features.Builder b, Warnings warnings) {
        String what = "GPU " + index;
        Map<String, String> gpu = new LinkedHashMap<>();
        gpu.put("index", Integer.toString(index));
        NvmlDevice dev;
        try {
            dev = nvml.device(index);
            gpu.put("name", dev.name());
        } catch (NvmlException e) {
            failed(gpu, e, what, warnings);
            b.instance("gpu", gpu);
            return;
        }
        optional(dev::uuid, what + " UUID", warnings).ifPresent(v -> gpu.put("uuid", v));
        Optional<Long> total = optional(() -> dev.memory().total(), what + " memory", warnings);
        total.ifPresent(v -> gpu.put("memory.total", Long.toUnsignedString(v)));
        optional(dev::computeCapability, what + " compute capability", warnings).ifPresent(cc -> {
            gpu.put("compute.major", Integer.toString(cc.major()));
            gpu.put("compute.minor", Integer.toString(cc.minor()));
        });
        optional(dev::pciInfo, what + " PCI info", warnings).ifPresent(pci -> {
            gpu.put("pci.busId", pci.busId());
            gpu.put("pci.deviceId", String.format("%08x", pci.pciDeviceId()));
        });
        Optional<NvmlDevice.MigMode> mig = optional(dev::migMode, what + " MIG mode", warnings);
        gpu.put("mig.capable", Boolean.toString(mig.isPresent()));
        mig.ifPresent(m -> gpu.put("mig.enabled", Boolean.toString(m.enabled())));
        optional(dev::fabricInfo, what + " fabric info", warnings).flatMap(f -> f).ifPresent(f -> {
            gpu.put("fabric.clusterUuid", uuid(f.clusterUuid()));
            gpu.put("fabric.cliqueId", Integer.toUnsignedString(f.cliqueId()));
            gpu.put("fabric.state", Integer.toString(f.state()));
            gpu.put("fabric.status", Integer.toString(f.status()));   // the registration's nvmlReturn_t; 0 = success
        });
        optional(() -> dev.numaNode(), what + " NUMA node", warnings).ifPresent(n ->
                n.ifPresent(node -> gpu.put("numaNode", Integer.toUnsignedString(node))));
        b.instance("gpu", gpu);
        if (mig.isPresent() && mig.get().enabled()) {
            migDevices(dev, index, total.orElse(null), b, warnings);
        }
    }

    private void migDevices(NvmlDevice gpu, int parent, Long parentTotal, Features.Builder b, Warnings warnings) {
        String what = "GPU " + parent;
        Optional<Integer> max = optional(gpu::maxMigDeviceCount, what + " max MIG device count", warnings);
        if (max.isEmpty()) {
            return;
        }
        List<GpuInstanceProfile> profiles = null;
        for (int slot = 0; slot < max.get(); slot++) {
            String migWhat = what + " MIG device " + slot;
            Map<String, String> m = new LinkedHashMap<>();
            m.put("parent", Integer.toString(parent));
            m.put("index", Integer.toString(slot));
            NvmlDevice mig;
            Attributes a;
            try {
                Optional<NvmlDevice> found = gpu.migDevice(slot);
                if (found.isEmpty()) {
                    continue;
                }
                mig = found.get();
                m.put("name", mig.name());
                a = mig.attributes();
            } catch (NvmlException e) {
                failed(m, e, migWhat, warnings);
                b.instance("mig", m);
                continue;
            }
            optional(mig::uuid, migWhat + " UUID", warnings).ifPresent(v -> m.put("uuid", v));
            optional(() -> mig.memory().total(), migWhat + " memory", warnings)
                    .ifPresent(v -> m.put("memory.total", Long.toUnsignedString(v)));
            m.put("attr.multiprocessorCount", Integer.toUnsignedString(a.multiprocessorCount()));
            m.put("attr.sharedCopyEngineCount", Integer.toUnsignedString(a.sharedCopyEngineCount()));
            m.put("attr.sharedDecoderCount", Integer.toUnsignedString(a.sharedDecoderCount()));
            m.put("attr.sharedEncoderCount", Integer.toUnsignedString(a.sharedEncoderCount()));
            m.put("attr.sharedJpegCount", Integer.toUnsignedString(a.sharedJpegCount()));
            m.put("attr.sharedOfaCount", Integer.toUnsignedString(a.sharedOfaCount()));
            m.put("attr.gpuInstanceSliceCount", Integer.toUnsignedString(a.gpuInstanceSliceCount()));
            m.put("attr.computeInstanceSliceCount", Integer.toUnsignedString(a.computeInstanceSliceCount()));
            m.put("attr.memorySizeMB", Long.toUnsignedString(a.memorySizeMB()));
            if (profiles == null) {
                profiles = optional(gpu::gpuInstanceProfiles, what + " GPU instance profiles", warnings).orElse(List.of());
            }
            if (parentTotal == null || parentTotal <= 0) {
                warnings.warn(migWhat + ": no profile name, the GPU's total memory is unknown");
            } else {
                String suffix = MigProfiles.profileOf(profiles, a).map(p -> MigProfiles.suffix(p.index())).orElse("");
                m.put("profile", MigProfiles.name(a, parentTotal, suffix));
            }
            b.instance("mig", m);
        }
    }

    private static void failed(Map<String, String> instance, NvmlException e, String what, Warnings warnings) {
        instance.put("error", e.getMessage());
        instance.put("errorCode", Integer.toString(e.code()));
        warnings.warn(what + ": " + e.getMessage());
    }

    /** One NVML query whose failure costs only its own value: NOT_SUPPORTED silently, anything else with a warning. */
    private static <T> Optional<T> optional(Query<T> query, String what, Warnings warnings) {
        try {
            return Optional.of(query.get());
        } catch (NvmlException e) {
            if (!e.isNotSupported()) {
                warnings.warn(what + ": " + e.getMessage());
            }
            return Optional.empty();
        }
    }

    /** The canonical lowercase 8-4-4-4-12 form of 16 raw bytes. */
    static String uuid(byte[] bytes) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        return new UUID(buf.getLong(), buf.getLong()).toString();
    }

    @FunctionalInterface
    private interface Query<T> {
        T get() throws NvmlException;
    }
}
