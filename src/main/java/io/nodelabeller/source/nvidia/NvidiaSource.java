package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.NvidiaPci;
import io.nodelabeller.nvml.Nvml;
import io.nodelabeller.nvml.NvmlDevice;
import io.nodelabeller.nvml.NvmlSymbol;
import io.nodelabeller.nvml.NvmlDevice.Attributes;
import io.nodelabeller.nvml.NvmlDevice.GpuInstanceProfile;
import io.nodelabeller.nvml.NvmlException;
import io.nodelabeller.nvml.NvmlLibrary;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;
import io.nodelabeller.source.SourceFailure;
import io.nodelabeller.source.pci.PciSource;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "nvidia";

    /** GFD's machine-type file, then where its symbolic link points (for host copies that lost the link). */
    static final List<String> PRODUCT_NAME_FILES = List.of("/sys/class/dmi/id/product_name",
            "/sys/devices/virtual/dmi/id/product_name");

    static final String NVML_ORIGIN = NvmlSymbol.names(NvmlSymbol.INIT, NvmlSymbol.DRIVER_VERSION,
            NvmlSymbol.CUDA_DRIVER_VERSION, NvmlSymbol.DEVICE_COUNT);
    static final String GPU_ORIGIN = NvmlSymbol.names(NvmlSymbol.HANDLE_BY_INDEX, NvmlSymbol.NAME, NvmlSymbol.UUID,
            NvmlSymbol.MEMORY_INFO, NvmlSymbol.CUDA_COMPUTE_CAPABILITY, NvmlSymbol.PCI_INFO, NvmlSymbol.MIG_MODE,
            NvmlSymbol.GPU_FABRIC_INFO, NvmlSymbol.NUMA_NODE_ID);
    static final String MIG_ORIGIN = NvmlSymbol.names(NvmlSymbol.MAX_MIG_DEVICE_COUNT, NvmlSymbol.MIG_DEVICE_HANDLE_BY_INDEX,
            NvmlSymbol.NAME, NvmlSymbol.UUID, NvmlSymbol.MEMORY_INFO, NvmlSymbol.ATTRIBUTES) + "; profile from "
            + NvmlSymbol.GPU_INSTANCE_PROFILE_INFO + " and the parent's " + NvmlSymbol.MEMORY_INFO;

    static final String PCI_DEVICES = "/sys/bus/pci/devices";

    /** Where vGPUs are looked for, after {@link #PCI_DEVICES}. */
    static final String VGPU_ORIGIN_TAIL = "/*/config (vendor 10de): a vendor-specific capability signed VF";

    private final String library;
    private final NvidiaConfig config;

    public NvidiaSource(Options options) {
        this(options, NvidiaConfig.DEFAULT);
    }

    /** With {@code sources.nvidia} ({@code vgpu}: look for vGPUs in the PCI configuration space). */
    public NvidiaSource(Options options, NvidiaConfig config) {
        this.library = options.nvmlLibrary();
        this.config = config;
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws Exception {
        Features.Builder b = Features.builder(NAME);
        for (String file : PRODUCT_NAME_FILES) {
            Optional<String> product = host.readTrimmed(file).filter(s -> !s.isEmpty());
            if (product.isPresent()) {
                b.attribute(NvidiaFeatures.MACHINE, NvidiaFeatures.PRODUCT_NAME, product.get());
                b.origin("machine", host.path(file).toString());
                break;
            }
        }

        if (config.vgpu()) {
            vgpus(host, b, warnings);
        }
        Nvml nvml;
        try {
            nvml = Nvml.open(library);
        } catch (NvmlException e) {
            b.attributes(NvidiaFeatures.NVML, NvidiaFeatures.Nvml.unavailable(e.getMessage(), e.code()).attributes());
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
            String driver = optional(nvml::driverVersion, "driver version", warnings).orElse(null);
            Integer cuda = optional(nvml::cudaDriverVersion, "CUDA driver version", warnings).orElse(null);
            int count = nvml.deviceCount();
            b.attributes(NvidiaFeatures.NVML, new NvidiaFeatures.Nvml(true, null, null, driver, cuda, count).attributes());
            b.origin("nvml", NVML_ORIGIN + " (" + nvml.library().name() + ")");
            b.instances("gpu").origin("gpu", GPU_ORIGIN);
            b.instances("mig").origin("mig", MIG_ORIGIN);
            for (int i = 0; i < count; i++) {
                gpu(nvml, i, b, warnings);
            }
        }
        return b.build();
    }

    /**
     * {@code nvidia.vgpu}: one instance per vGPU found in the PCI configuration space ({@link VgpuScan}), whatever
     * NVML says (as GFD). A space that cannot be read whole (the agent lacks CAP_SYS_ADMIN) or a vGPU without a driver
     * record is a warning and no {@code nvidia.vgpu} at all, as GFD then gives no vGPU label (GFD exits on the
     * latter; here the other labels stay).
     */
    private static void vgpus(HostFs host, Features.Builder b, Warnings warnings) {
        List<NvidiaFeatures.Vgpu> found;
        try {
            found = VgpuScan.scan(host);
        } catch (VgpuScan.ScanException e) {
            warnings.warn("vGPU detection (sources.nvidia.vgpu): " + e.getMessage() + "; no nvidia.com/vgpu.* label");
            return;
        }
        // declared even when empty: a scan that found none is a fact (vgpu.present=false), a failed one is not
        b.instances(NvidiaFeatures.VGPU).origin(NvidiaFeatures.VGPU, host.path(PCI_DEVICES) + VGPU_ORIGIN_TAIL);
        for (NvidiaFeatures.Vgpu v : found) {
            b.instance(NvidiaFeatures.VGPU, v.attributes());
        }
    }

    /**
     * An NVIDIA display or 3D controller (vendor 10de, class 0300 or 0302) in {@code /sys/bus/pci/devices}. The class
     * is read only for NVIDIA devices: on a node without NVML and without an NVIDIA GPU this runs every cycle over
     * every device, and there the vendor alone answers.
     */
    static boolean nvidiaGpuOnPci(HostFs host) {
        for (String dev : host.listOrEmpty(PCI_DEVICES)) {
            if (!NvidiaPci.VENDOR.equals(sysfsId(host, PCI_DEVICES + "/" + dev + "/vendor"))) {
                continue;
            }
            String cls = sysfsId(host, PCI_DEVICES + "/" + dev + "/class");
            if (NvidiaPci.isGpuClass(cls.length() > 4 ? cls.substring(0, 4) : cls)) {
                return true;
            }
        }
        return false;
    }

    /** A sysfs id file ("0x10de", "0x030200") without its 0x, lower-cased; empty when unreadable. */
    static String sysfsId(HostFs host, String path) {
        return PciSource.id(host.readTrimmed(path).orElse(""));
    }

    private void gpu(Nvml nvml, int index, Features.Builder b, Warnings warnings) {
        String what = "GPU " + index;
        NvmlDevice dev;
        String name;
        try {
            dev = nvml.device(index);
            name = dev.name();
        } catch (NvmlException e) {
            warnings.warn(what + ": " + e.getMessage());
            b.instance(NvidiaFeatures.GPU, NvidiaFeatures.Gpu.failed(index, e.getMessage(), e.code()).attributes());
            return;
        }
        String uuid = optional(dev::uuid, what + " UUID", warnings).orElse(null);
        Long total = optional(() -> dev.memory().total(), what + " memory", warnings).orElse(null);
        Optional<NvmlDevice.ComputeCapability> cc = optional(dev::computeCapability, what + " compute capability", warnings);
        Optional<NvmlDevice.PciInfo> pci = optional(dev::pciInfo, what + " PCI info", warnings);
        Optional<NvmlDevice.MigMode> mig = optional(dev::migMode, what + " MIG mode", warnings);
        NvidiaFeatures.Fabric fabric = optional(dev::fabricInfo, what + " fabric info", warnings).flatMap(f -> f)
                .map(f -> new NvidiaFeatures.Fabric(uuid(f.clusterUuid()), Integer.toUnsignedLong(f.cliqueId()),
                        f.state(), f.status())) // status: the registration's nvmlReturn_t; 0 = success
                .orElse(null);
        Long numaNode = optional(() -> dev.numaNode(), what + " NUMA node", warnings)
                .filter(java.util.OptionalInt::isPresent).map(n -> Integer.toUnsignedLong(n.getAsInt())).orElse(null);
        b.instance(NvidiaFeatures.GPU, NvidiaFeatures.Gpu.of(index).name(name).uuid(uuid).memoryTotal(total)
                .computeCapability(cc.map(NvmlDevice.ComputeCapability::major).orElse(null),
                        cc.map(NvmlDevice.ComputeCapability::minor).orElse(null))
                .pci(pci.map(NvmlDevice.PciInfo::busId).orElse(null), pci.map(p -> String.format("%08x", p.pciDeviceId())).orElse(null))
                .mig(mig.isPresent(), mig.map(NvmlDevice.MigMode::enabled).orElse(null))
                .fabric(fabric).numaNode(numaNode).build().attributes());
        if (mig.isPresent() && mig.get().enabled()) {
            migDevices(dev, index, total, b, warnings);
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
            NvmlDevice mig;
            String name = null;
            Attributes a;
            try {
                Optional<NvmlDevice> found = gpu.migDevice(slot);
                if (found.isEmpty()) {
                    continue;
                }
                mig = found.get();
                name = mig.name();
                a = mig.attributes();
            } catch (NvmlException e) {
                warnings.warn(migWhat + ": " + e.getMessage());
                b.instance(NvidiaFeatures.MIG, NvidiaFeatures.Mig.failed(parent, slot, name, e.getMessage(), e.code()).attributes());
                continue;
            }
            String uuid = optional(mig::uuid, migWhat + " UUID", warnings).orElse(null);
            Long total = optional(() -> mig.memory().total(), migWhat + " memory", warnings).orElse(null);
            Map<String, Long> attrs = new LinkedHashMap<>();
            attrs.put("multiprocessorCount", Integer.toUnsignedLong(a.multiprocessorCount()));
            attrs.put("sharedCopyEngineCount", Integer.toUnsignedLong(a.sharedCopyEngineCount()));
            attrs.put("sharedDecoderCount", Integer.toUnsignedLong(a.sharedDecoderCount()));
            attrs.put("sharedEncoderCount", Integer.toUnsignedLong(a.sharedEncoderCount()));
            attrs.put("sharedJpegCount", Integer.toUnsignedLong(a.sharedJpegCount()));
            attrs.put("sharedOfaCount", Integer.toUnsignedLong(a.sharedOfaCount()));
            attrs.put("gpuInstanceSliceCount", Integer.toUnsignedLong(a.gpuInstanceSliceCount()));
            attrs.put("computeInstanceSliceCount", Integer.toUnsignedLong(a.computeInstanceSliceCount()));
            attrs.put("memorySizeMB", a.memorySizeMB());
            if (profiles == null) {
                profiles = optional(gpu::gpuInstanceProfiles, what + " GPU instance profiles", warnings).orElse(List.of());
            }
            String profile = null;
            if (parentTotal == null || parentTotal <= 0) {
                warnings.warn(migWhat + ": no profile name, the GPU's total memory is unknown");
            } else {
                String suffix = MigProfiles.profileOf(profiles, a).map(p -> MigProfiles.suffix(p.index())).orElse("");
                profile = MigProfiles.name(a, parentTotal, suffix);
            }
            b.instance(NvidiaFeatures.MIG,
                    new NvidiaFeatures.Mig(parent, slot, name, uuid, total, attrs, profile, null, null).attributes());
        }
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
