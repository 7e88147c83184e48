package io.nodelabeller.nvml;

import java.util.Arrays;
import java.util.List;

/**
 * Every NVML symbol node-labeller calls, declared once: its exported name (the {@code _v2}/{@code _v3} name that
 * {@code nvml.h}'s macros map to, which a dlsym caller must ask for itself), its C signature, and, for an optional
 * symbol, the driver branch that added it. {@link NvmlLibrary} resolves the required ones up front (a library
 * without one is reported unavailable) and the optional ones where present; docs/gpu.md's list is generated from
 * here.
 */
public enum NvmlSymbol {

    INIT("nvmlInit_v2", "nvmlReturn_t nvmlInit_v2(void)"),
    SHUTDOWN("nvmlShutdown", "nvmlReturn_t nvmlShutdown(void)"),
    ERROR_STRING("nvmlErrorString", "const char *nvmlErrorString(nvmlReturn_t result)"),
    DRIVER_VERSION("nvmlSystemGetDriverVersion", "nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)"),
    CUDA_DRIVER_VERSION("nvmlSystemGetCudaDriverVersion", "nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)"),
    DEVICE_COUNT("nvmlDeviceGetCount_v2", "nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)"),
    HANDLE_BY_INDEX("nvmlDeviceGetHandleByIndex_v2",
            "nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)"),
    NAME("nvmlDeviceGetName", "nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)"),
    UUID("nvmlDeviceGetUUID", "nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)"),
    MEMORY_INFO("nvmlDeviceGetMemoryInfo", "nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)"),
    CUDA_COMPUTE_CAPABILITY("nvmlDeviceGetCudaComputeCapability",
            "nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)"),
    PCI_INFO("nvmlDeviceGetPciInfo_v3", "nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)"),
    MIG_MODE("nvmlDeviceGetMigMode",
            "nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)"),
    MAX_MIG_DEVICE_COUNT("nvmlDeviceGetMaxMigDeviceCount",
            "nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)"),
    MIG_DEVICE_HANDLE_BY_INDEX("nvmlDeviceGetMigDeviceHandleByIndex",
            "nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)"),
    DEVICE_HANDLE_FROM_MIG_DEVICE_HANDLE("nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
            "nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)"),
    ATTRIBUTES("nvmlDeviceGetAttributes_v2",
            "nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)"),
    GPU_INSTANCE_ID("nvmlDeviceGetGpuInstanceId", "nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)"),
    COMPUTE_INSTANCE_ID("nvmlDeviceGetComputeInstanceId",
            "nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)"),
    GPU_INSTANCE_PROFILE_INFO("nvmlDeviceGetGpuInstanceProfileInfo", "nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo("
            + "nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_t *info)"),
    GPU_FABRIC_INFO("nvmlDeviceGetGpuFabricInfo",
            "nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)", "R525"),
    NUMA_NODE_ID("nvmlDeviceGetNumaNodeId", "nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)",
            "R550");

    private final String symbol;
    private final String signature;
    private final String since;

    NvmlSymbol(String symbol, String signature) {
        this(symbol, signature, null);
    }

    /** {@code since}: the driver branch that added an optional symbol; null for a required one. */
    NvmlSymbol(String symbol, String signature, String since) {
        this.symbol = symbol;
        this.signature = signature;
        this.since = since;
    }

    /** The exported name, e.g. {@code nvmlDeviceGetCount_v2}. */
    public String symbol() {
        return symbol;
    }

    /** The C declaration from nvml.h. */
    public String signature() {
        return signature;
    }

    /** Whether a library may lack it: then only the value it gives is left out. */
    public boolean optional() {
        return since != null;
    }

    /** The driver branch that added an optional symbol ({@code R525}); null for a required one. */
    public String since() {
        return since;
    }

    public static List<NvmlSymbol> required() {
        return Arrays.stream(values()).filter(s -> !s.optional()).toList();
    }

    public static List<NvmlSymbol> optionals() {
        return Arrays.stream(values()).filter(NvmlSymbol::optional).toList();
    }

    /** Calls as an origin names them: "nvmlDeviceGetCount_v2, nvmlDeviceGetName". */
    public static String names(NvmlSymbol... symbols) {
        return Arrays.stream(symbols).map(NvmlSymbol::symbol).collect(java.util.stream.Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return symbol;
    }
}
