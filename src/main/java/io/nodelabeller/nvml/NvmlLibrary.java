package io.nodelabeller.nvml;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The raw JNA binding: exactly the NVML symbols node-labeller needs (docs/gpu.md lists them), under their real exported names (the {@code _v2} /
 * {@code _v3} names that {@code nvml.h}'s macros map to, which a dlsym caller must ask for itself). Every method
 * returns the {@code nvmlReturn_t} code unchanged; {@link Nvml} is the safe face over it.
 *
 * <p>Loading resolves every required symbol up front, so that a library from a driver too old for this binding
 * is reported as unavailable at once rather than failing half-way through a discovery. The optional symbols
 * ({@link #FABRIC_INFO}, {@link #NUMA_NODE_ID}) may be missing; {@link #has} tells.
 *
 * <p>JNA itself needs its native dispatch library, which it unpacks from its jar into {@code jna.tmpdir}
 * (else {@code $XDG_CACHE_HOME/JNA/temp}, else {@code java.io.tmpdir}). On a read-only root file system point
 * {@code -Djna.tmpdir} at a writable directory, or {@code -Djna.boot.library.path} (with {@code -Djna.nosys=false})
 * at a pre-installed {@code libjnidispatch.so}; see docs/gpu.md ("Read-only root file system"). A failure there is reported like a missing NVML.
 */
public final class NvmlLibrary implements AutoCloseable {

    /** The NVML SONAME: what NVIDIA's own tools load. */
    public static final String DEFAULT_NAME = "libnvidia-ml.so.1";

    public static final int SUCCESS = 0;
    public static final int INVALID_ARGUMENT = 2;
    public static final int NOT_SUPPORTED = 3;
    public static final int NOT_FOUND = 6;
    public static final int LIBRARY_NOT_FOUND = 12;
    public static final int FUNCTION_NOT_FOUND = 13;

    public static final String FABRIC_INFO = "nvmlDeviceGetGpuFabricInfo";
    public static final String NUMA_NODE_ID = "nvmlDeviceGetNumaNodeId";

    /** Buffer sizes from nvml.h: NVML_DEVICE_NAME_V2_BUFFER_SIZE, _UUID_V2_, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE. */
    public static final int NAME_BUFFER = 96;
    public static final int UUID_BUFFER = 96;
    public static final int DRIVER_VERSION_BUFFER = 80;

    static final List<String> REQUIRED = List.of(
            "nvmlInit_v2", "nvmlShutdown", "nvmlErrorString",
            "nvmlSystemGetDriverVersion", "nvmlSystemGetCudaDriverVersion",
            "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2",
            "nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlDeviceGetMemoryInfo",
            "nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetPciInfo_v3",
            "nvmlDeviceGetMigMode", "nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMigDeviceHandleByIndex",
            "nvmlDeviceGetDeviceHandleFromMigDeviceHandle", "nvmlDeviceGetAttributes_v2",
            "nvmlDeviceGetGpuInstanceId", "nvmlDeviceGetComputeInstanceId",
            "nvmlDeviceGetGpuInstanceProfileInfo");
    static final List<String> OPTIONAL = List.of(FABRIC_INFO, NUMA_NODE_ID);

    private final String name;
    private final NativeLibrary library;
    private final Map<String, Function> functions;

    private NvmlLibrary(String name, NativeLibrary library, Map<String, Function> functions) {
        this.name = name;
        this.library = library;
        this.functions = functions;
    }

    /**
     * Loads {@code library} (a path, or null for {@link #DEFAULT_NAME} from the system search path) and resolves
     * its symbols. Throws {@link NvmlException} with code 12 when it cannot be loaded, 13 when a required symbol
     * is missing; never an {@link Error}.
     */
    public static NvmlLibrary load(String library) throws NvmlException {
        String name = library == null || library.isBlank() ? DEFAULT_NAME : library;
        if (name.contains("/") && !Files.exists(Path.of(name))) {
            throw new NvmlException(LIBRARY_NOT_FOUND, name + " not found");
        }
        try {
            // Initialises JNA's own native part (libjnidispatch) first, so that its failure is named as such.
            if (Native.POINTER_SIZE != 8) {
                throw new NvmlException(LIBRARY_NOT_FOUND, "NVML needs a 64-bit process");
            }
        } catch (LinkageError e) {
            // Typically no writable directory to unpack it into; JNA does not retry within this process.
            throw new NvmlException(LIBRARY_NOT_FOUND, "JNA native support cannot be loaded (set -Djna.tmpdir to a "
                    + "writable directory): " + firstLine(e.getMessage()));
        }
        NativeLibrary lib;
        try {
            lib = NativeLibrary.getInstance(name);
        } catch (UnsatisfiedLinkError e) {
            String why = dlerror(e.getMessage());
            throw new NvmlException(LIBRARY_NOT_FOUND, why.startsWith(name + ": ") && why.endsWith("No such file or directory")
                    ? name + " not found" : name + " cannot be loaded: " + why);
        }
        Map<String, Function> functions = new HashMap<>();
        for (String symbol : REQUIRED) {
            Function f = lookup(lib, symbol);
            if (f == null) {
                lib.close();
                throw new NvmlException(FUNCTION_NOT_FOUND, name + " lacks the symbol " + symbol);
            }
            functions.put(symbol, f);
        }
        for (String symbol : OPTIONAL) {
            Function f = lookup(lib, symbol);
            if (f != null) {
                functions.put(symbol, f);
            }
        }
        return new NvmlLibrary(name, lib, functions);
    }

    private static Function lookup(NativeLibrary lib, String symbol) {
        try {
            return lib.getFunction(symbol);
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    /**
     * The dynamic linker's reason from JNA's message, which reads "Unable to load library 'x':" followed by one
     * line per place tried, the first being dlopen's own ("x: cannot open shared object file: ...").
     */
    private static String dlerror(String message) {
        if (message == null) {
            return "unknown error";
        }
        List<String> lines = message.lines().map(String::trim).filter(l -> !l.isEmpty()).toList();
        return lines.size() > 1 && lines.get(0).startsWith("Unable to load library") ? lines.get(1) : firstLine(message);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).trim();
    }

    /** What was loaded: the path given, or {@link #DEFAULT_NAME}. */
    public String name() {
        return name;
    }

    /** Whether the library exports {@code symbol} (one of the bound ones). */
    public boolean has(String symbol) {
        return functions.containsKey(symbol);
    }

    private int call(String symbol, Object... args) {
        Function f = functions.get(symbol);
        if (f == null) {
            return FUNCTION_NOT_FOUND;
        }
        return f.invokeInt(args);
    }

    /** Unloads the library (dlclose). Call {@link #nvmlShutdown} first. */
    @Override
    public void close() {
        library.close();
    }

    // ---- the symbols, one method each, C signatures in the comments ----

    /** {@code nvmlReturn_t nvmlInit_v2(void)} */
    public int nvmlInit_v2() {
        return call("nvmlInit_v2");
    }

    /** {@code nvmlReturn_t nvmlShutdown(void)} */
    public int nvmlShutdown() {
        return call("nvmlShutdown");
    }

    /** {@code const char *nvmlErrorString(nvmlReturn_t)}: a static string, never freed. */
    public String nvmlErrorString(int result) {
        Pointer p = functions.get("nvmlErrorString").invokePointer(new Object[] {result});
        return p == null ? "" : p.getString(0, "UTF-8");
    }

    /** {@code nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)} */
    public int nvmlSystemGetDriverVersion(byte[] version, int length) {
        return call("nvmlSystemGetDriverVersion", version, length);
    }

    /** {@code nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)} */
    public int nvmlSystemGetCudaDriverVersion(IntByReference cudaDriverVersion) {
        return call("nvmlSystemGetCudaDriverVersion", cudaDriverVersion);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)} */
    public int nvmlDeviceGetCount_v2(IntByReference deviceCount) {
        return call("nvmlDeviceGetCount_v2", deviceCount);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)} */
    public int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device) {
        return call("nvmlDeviceGetHandleByIndex_v2", index, device);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)} */
    public int nvmlDeviceGetName(Pointer device, byte[] name, int length) {
        return call("nvmlDeviceGetName", device, name, length);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)} */
    public int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length) {
        return call("nvmlDeviceGetUUID", device, uuid, length);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)} */
    public int nvmlDeviceGetMemoryInfo(Pointer device, NvmlStructs.Memory memory) {
        return call("nvmlDeviceGetMemoryInfo", device, memory);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)} */
    public int nvmlDeviceGetCudaComputeCapability(Pointer device, IntByReference major, IntByReference minor) {
        return call("nvmlDeviceGetCudaComputeCapability", device, major, minor);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)} */
    public int nvmlDeviceGetPciInfo_v3(Pointer device, NvmlStructs.PciInfo pci) {
        return call("nvmlDeviceGetPciInfo_v3", device, pci);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)} */
    public int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode) {
        return call("nvmlDeviceGetMigMode", device, currentMode, pendingMode);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)} */
    public int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count) {
        return call("nvmlDeviceGetMaxMigDeviceCount", device, count);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)} */
    public int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice) {
        return call("nvmlDeviceGetMigDeviceHandleByIndex", device, index, migDevice);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)} */
    public int nvmlDeviceGetDeviceHandleFromMigDeviceHandle(Pointer migDevice, PointerByReference device) {
        return call("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", migDevice, device);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)} */
    public int nvmlDeviceGetAttributes_v2(Pointer device, NvmlStructs.DeviceAttributes attributes) {
        return call("nvmlDeviceGetAttributes_v2", device, attributes);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)} */
    public int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id) {
        return call("nvmlDeviceGetGpuInstanceId", device, id);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)} */
    public int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id) {
        return call("nvmlDeviceGetComputeInstanceId", device, id);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_t *info)} */
    public int nvmlDeviceGetGpuInstanceProfileInfo(Pointer device, int profile, NvmlStructs.GpuInstanceProfileInfo info) {
        return call("nvmlDeviceGetGpuInstanceProfileInfo", device, profile, info);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)}; optional (R525+). */
    public int nvmlDeviceGetGpuFabricInfo(Pointer device, NvmlStructs.GpuFabricInfo gpuFabricInfo) {
        return call(FABRIC_INFO, device, gpuFabricInfo);
    }

    /** {@code nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)}; optional (R550+). */
    public int nvmlDeviceGetNumaNodeId(Pointer device, IntByReference node) {
        return call(NUMA_NODE_ID, device, node);
    }
}
