package io.nodelabeller.nvml;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A GPU or MIG device handle of an open {@link Nvml} session, valid until the session is closed. Every query
 * is one NVML call; failures throw {@link NvmlException}. The optional calls ({@link #fabricInfo},
 * {@link #numaNode}) answer empty when the library lacks the symbol or the device answers NOT_SUPPORTED.
 */
public final class NvmlDevice {

    /** {@code nvmlMemory_t}; unsigned byte counts (use {@link Long#toUnsignedString}). */
    public record Memory(long total, long free, long used) {
    }

    public record ComputeCapability(int major, int minor) {
    }

    /**
     * {@code nvmlPciInfo_t}. {@code pciDeviceId} = device id &lt;&lt; 16 | vendor id (0x20B010DE);
     * {@code busId} as NVML prints it ("00000000:07:00.0").
     */
    public record PciInfo(String busIdLegacy, int domain, int bus, int device, int pciDeviceId, int pciSubSystemId,
                          String busId) {
    }

    /** {@code nvmlDeviceGetMigMode}: 1 = enabled. */
    public record MigMode(int current, int pending) {
        public boolean enabled() {
            return current == 1;
        }
    }

    /** {@code nvmlDeviceAttributes_t} of a MIG device. */
    public record Attributes(int multiprocessorCount, int sharedCopyEngineCount, int sharedDecoderCount,
                             int sharedEncoderCount, int sharedJpegCount, int sharedOfaCount,
                             int gpuInstanceSliceCount, int computeInstanceSliceCount, long memorySizeMB) {
    }

    /** {@code nvmlGpuInstanceProfileInfo_t} for profile index {@code index} ({@code NVML_GPU_INSTANCE_PROFILE_*}). */
    public record GpuInstanceProfile(int index, int id, int sliceCount, int instanceCount, int multiprocessorCount,
                                     int copyEngineCount, int decoderCount, int encoderCount, int jpegCount,
                                     int ofaCount, long memorySizeMB) {
    }

    /** {@code nvmlGpuFabricInfo_t}; {@code clusterUuid} is 16 raw bytes, {@code state} 3 = completed. */
    public record FabricInfo(byte[] clusterUuid, int status, int cliqueId, int state) {
        public FabricInfo {
            clusterUuid = clusterUuid.clone();
        }

        @Override
        public byte[] clusterUuid() {
            return clusterUuid.clone();
        }
    }

    /** Profile indexes probed: NVML_GPU_INSTANCE_PROFILE_COUNT is 18 in the 13.2 header and grows; NVML ends the list with INVALID_ARGUMENT. */
    private static final int MAX_PROFILE_INDEX = 64;

    private final Nvml nvml;
    private final Pointer handle;

    NvmlDevice(Nvml nvml, Pointer handle) {
        this.nvml = nvml;
        this.handle = handle;
    }

    /** The opaque {@code nvmlDevice_t}. */
    public Pointer handle() {
        return handle;
    }

    public String name() throws NvmlException {
        byte[] buf = new byte[NvmlLibrary.NAME_BUFFER];
        nvml.invoke(NvmlSymbol.NAME, handle, buf, buf.length);
        return Nvml.text(buf);
    }

    public String uuid() throws NvmlException {
        byte[] buf = new byte[NvmlLibrary.UUID_BUFFER];
        nvml.invoke(NvmlSymbol.UUID, handle, buf, buf.length);
        return Nvml.text(buf);
    }

    public Memory memory() throws NvmlException {
        NvmlStructs.Memory m = new NvmlStructs.Memory();
        nvml.invoke(NvmlSymbol.MEMORY_INFO, handle, m);
        return new Memory(m.total, m.free, m.used);
    }

    public ComputeCapability computeCapability() throws NvmlException {
        IntByReference major = new IntByReference();
        IntByReference minor = new IntByReference();
        nvml.invoke(NvmlSymbol.CUDA_COMPUTE_CAPABILITY, handle, major, minor);
        return new ComputeCapability(major.getValue(), minor.getValue());
    }

    public PciInfo pciInfo() throws NvmlException {
        NvmlStructs.PciInfo p = new NvmlStructs.PciInfo();
        nvml.invoke(NvmlSymbol.PCI_INFO, handle, p);
        return new PciInfo(Nvml.text(p.busIdLegacy), p.domain, p.bus, p.device, p.pciDeviceId, p.pciSubSystemId,
                Nvml.text(p.busId));
    }

    /** Throws with code 3 (NOT_SUPPORTED) on a GPU that cannot do MIG. */
    public MigMode migMode() throws NvmlException {
        IntByReference current = new IntByReference();
        IntByReference pending = new IntByReference();
        nvml.invoke(NvmlSymbol.MIG_MODE, handle, current, pending);
        return new MigMode(current.getValue(), pending.getValue());
    }

    /** {@code nvmlDeviceGetMaxMigDeviceCount}: 0 when MIG is off. */
    public int maxMigDeviceCount() throws NvmlException {
        IntByReference n = new IntByReference();
        nvml.invoke(NvmlSymbol.MAX_MIG_DEVICE_COUNT, handle, n);
        return n.getValue();
    }

    /** The MIG device in slot {@code index}, empty for an empty slot (NOT_FOUND or INVALID_ARGUMENT, as go-nvlib skips). */
    public Optional<NvmlDevice> migDevice(int index) throws NvmlException {
        PointerByReference mig = new PointerByReference();
        int rc = nvml.lib().call(NvmlSymbol.MIG_DEVICE_HANDLE_BY_INDEX, handle, index, mig);
        if (rc == NvmlLibrary.NOT_FOUND || rc == NvmlLibrary.INVALID_ARGUMENT) {
            return Optional.empty();
        }
        nvml.check(NvmlSymbol.MIG_DEVICE_HANDLE_BY_INDEX, rc);
        return Optional.of(new NvmlDevice(nvml, mig.getValue()));
    }

    /** The GPU a MIG device lives on. */
    public NvmlDevice parent() throws NvmlException {
        PointerByReference parent = new PointerByReference();
        nvml.invoke(NvmlSymbol.DEVICE_HANDLE_FROM_MIG_DEVICE_HANDLE, handle, parent);
        return new NvmlDevice(nvml, parent.getValue());
    }

    /** A MIG device's attributes (NOT_SUPPORTED on a full GPU). */
    public Attributes attributes() throws NvmlException {
        NvmlStructs.DeviceAttributes a = new NvmlStructs.DeviceAttributes();
        nvml.invoke(NvmlSymbol.ATTRIBUTES, handle, a);
        return new Attributes(a.multiprocessorCount, a.sharedCopyEngineCount, a.sharedDecoderCount,
                a.sharedEncoderCount, a.sharedJpegCount, a.sharedOfaCount, a.gpuInstanceSliceCount,
                a.computeInstanceSliceCount, a.memorySizeMB);
    }

    public int gpuInstanceId() throws NvmlException {
        IntByReference id = new IntByReference();
        nvml.invoke(NvmlSymbol.GPU_INSTANCE_ID, handle, id);
        return id.getValue();
    }

    public int computeInstanceId() throws NvmlException {
        IntByReference id = new IntByReference();
        nvml.invoke(NvmlSymbol.COMPUTE_INSTANCE_ID, handle, id);
        return id.getValue();
    }

    /** GPU-instance profile {@code index}; empty when this GPU does not support it (NOT_SUPPORTED). */
    public Optional<GpuInstanceProfile> gpuInstanceProfile(int index) throws NvmlException {
        NvmlStructs.GpuInstanceProfileInfo p = new NvmlStructs.GpuInstanceProfileInfo();
        int rc = nvml.lib().call(NvmlSymbol.GPU_INSTANCE_PROFILE_INFO, handle, index, p);
        if (rc == NvmlLibrary.NOT_SUPPORTED) {
            return Optional.empty();
        }
        nvml.check(NvmlSymbol.GPU_INSTANCE_PROFILE_INFO, rc);
        return Optional.of(new GpuInstanceProfile(index, p.id, p.sliceCount, p.instanceCount, p.multiprocessorCount,
                p.copyEngineCount, p.decoderCount, p.encoderCount, p.jpegCount, p.ofaCount, p.memorySizeMB));
    }

    /** Every supported GPU-instance profile, probing indexes from 0 until NVML answers INVALID_ARGUMENT. */
    public List<GpuInstanceProfile> gpuInstanceProfiles() throws NvmlException {
        List<GpuInstanceProfile> out = new ArrayList<>();
        for (int i = 0; i < MAX_PROFILE_INDEX; i++) {
            Optional<GpuInstanceProfile> p;
            try {
                p = gpuInstanceProfile(i);
            } catch (NvmlException e) {
                if (e.code() == NvmlLibrary.INVALID_ARGUMENT) {
                    break;
                }
                throw e;
            }
            p.ifPresent(out::add);
        }
        return out;
    }

    /** Fabric info (Hopper+); empty when the symbol is missing or the GPU answers NOT_SUPPORTED. */
    public Optional<FabricInfo> fabricInfo() throws NvmlException {
        if (!nvml.lib().has(NvmlSymbol.GPU_FABRIC_INFO)) {
            return Optional.empty();
        }
        NvmlStructs.GpuFabricInfo f = new NvmlStructs.GpuFabricInfo();
        int rc = nvml.lib().call(NvmlSymbol.GPU_FABRIC_INFO, handle, f);
        if (rc == NvmlLibrary.NOT_SUPPORTED) {
            return Optional.empty();
        }
        nvml.check(NvmlSymbol.GPU_FABRIC_INFO, rc);
        return Optional.of(new FabricInfo(f.clusterUuid, f.status, f.cliqueId, Byte.toUnsignedInt(f.state)));
    }

    /** NUMA node of the GPU's memory (GH200/GB200); empty when the symbol is missing or NOT_SUPPORTED. */
    public OptionalInt numaNode() throws NvmlException {
        if (!nvml.lib().has(NvmlSymbol.NUMA_NODE_ID)) {
            return OptionalInt.empty();
        }
        IntByReference node = new IntByReference();
        int rc = nvml.lib().call(NvmlSymbol.NUMA_NODE_ID, handle, node);
        if (rc == NvmlLibrary.NOT_SUPPORTED) {
            return OptionalInt.empty();
        }
        nvml.check(NvmlSymbol.NUMA_NODE_ID, rc);
        return OptionalInt.of(node.getValue());
    }
}
