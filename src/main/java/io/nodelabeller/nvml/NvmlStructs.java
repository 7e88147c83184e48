package io.nodelabeller.nvml;

import com.sun.jna.Structure;

/**
 * The NVML structs the binding passes by reference, laid out as NVIDIA's {@code nvml.h} on x86-64.
 * JNA's default alignment is gcc's, so plain fields in header order give the same
 * offsets; {@code NvmlStructsTest} checks every size and offset against gcc's answers from the fake library.
 * Fields are public because JNA reads and writes them reflectively.
 */
public final class NvmlStructs {

    private NvmlStructs() {
    }

    /** Lets tests in this package read JNA's computed field offsets. */
    abstract static class Base extends Structure {
        int offsetOf(String field) {
            return fieldOffset(field);
        }

        java.util.List<String> fields() {
            return getFieldOrder();
        }
    }

    /** {@code nvmlPciInfo_t}: 68 bytes, no reserved fields, busId at offset 36. */
    @Structure.FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
    public static final class PciInfo extends Base {
        public byte[] busIdLegacy = new byte[16];
        public int domain;
        public int bus;
        public int device;
        public int pciDeviceId;
        public int pciSubSystemId;
        public byte[] busId = new byte[32];
    }

    /** {@code nvmlMemory_t} (v1): total, free, used as unsigned 64-bit byte counts; 24 bytes. */
    @Structure.FieldOrder({"total", "free", "used"})
    public static final class Memory extends Base {
        public long total;
        public long free;
        public long used;
    }

    /** {@code nvmlDeviceAttributes_t} as filled by {@code nvmlDeviceGetAttributes_v2}: eight u32 then a u64; 40 bytes. */
    @Structure.FieldOrder({"multiprocessorCount", "sharedCopyEngineCount", "sharedDecoderCount", "sharedEncoderCount",
            "sharedJpegCount", "sharedOfaCount", "gpuInstanceSliceCount", "computeInstanceSliceCount", "memorySizeMB"})
    public static final class DeviceAttributes extends Base {
        public int multiprocessorCount;
        public int sharedCopyEngineCount;
        public int sharedDecoderCount;
        public int sharedEncoderCount;
        public int sharedJpegCount;
        public int sharedOfaCount;
        public int gpuInstanceSliceCount;
        public int computeInstanceSliceCount;
        public long memorySizeMB;
    }

    /** {@code nvmlGpuInstanceProfileInfo_t} (v1, unversioned call): ten u32 then u64 memorySizeMB; 48 bytes. */
    @Structure.FieldOrder({"id", "isP2pSupported", "sliceCount", "instanceCount", "multiprocessorCount",
            "copyEngineCount", "decoderCount", "encoderCount", "jpegCount", "ofaCount", "memorySizeMB"})
    public static final class GpuInstanceProfileInfo extends Base {
        public int id;
        public int isP2pSupported;
        public int sliceCount;
        public int instanceCount;
        public int multiprocessorCount;
        public int copyEngineCount;
        public int decoderCount;
        public int encoderCount;
        public int jpegCount;
        public int ofaCount;
        public long memorySizeMB;
    }

    /** {@code nvmlGpuFabricInfo_t} (v1): uchar clusterUuid[16], status, cliqueId, uchar state; 28 bytes. */
    @Structure.FieldOrder({"clusterUuid", "status", "cliqueId", "state"})
    public static final class GpuFabricInfo extends Base {
        public byte[] clusterUuid = new byte[16];
        public int status;
        public int cliqueId;
        public byte state;
    }
}
