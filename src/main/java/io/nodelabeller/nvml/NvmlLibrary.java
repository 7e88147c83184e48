package io.nodelabeller.nvml;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The raw JNA binding: exactly the NVML symbols node-labeller needs ({@link NvmlSymbol}), under their real exported
 * names. {@link #call} returns the {@code nvmlReturn_t} code unchanged; {@link Nvml} is the safe face over it.
 *
 * <p>Loading resolves every required symbol up front, so that a library from a driver too old for this binding
 * is reported as unavailable at once rather than failing half-way through a discovery. The optional symbols
 * ({@link NvmlSymbol#optional()}) may be missing; {@link #has} tells.
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

    /** Buffer sizes from nvml.h: NVML_DEVICE_NAME_V2_BUFFER_SIZE, _UUID_V2_, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE. */
    public static final int NAME_BUFFER = 96;
    public static final int UUID_BUFFER = 96;
    public static final int DRIVER_VERSION_BUFFER = 80;

    private final String name;
    private final NativeLibrary library;
    private final Map<NvmlSymbol, Function> functions;

    private NvmlLibrary(String name, NativeLibrary library, Map<NvmlSymbol, Function> functions) {
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
        Map<NvmlSymbol, Function> functions = new EnumMap<>(NvmlSymbol.class);
        for (NvmlSymbol symbol : NvmlSymbol.required()) {
            Function f = lookup(lib, symbol);
            if (f == null) {
                lib.close();
                throw new NvmlException(FUNCTION_NOT_FOUND, name + " lacks the symbol " + symbol);
            }
            functions.put(symbol, f);
        }
        for (NvmlSymbol symbol : NvmlSymbol.optionals()) {
            Function f = lookup(lib, symbol);
            if (f != null) {
                functions.put(symbol, f);
            }
        }
        return new NvmlLibrary(name, lib, functions);
    }

    private static Function lookup(NativeLibrary lib, NvmlSymbol symbol) {
        try {
            return lib.getFunction(symbol.symbol());
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

    /** Whether the library exports {@code symbol} (a required one always: loading checks them). */
    public boolean has(NvmlSymbol symbol) {
        return functions.containsKey(symbol);
    }

    /**
     * Calls {@code symbol} with {@code args} as its C signature ({@link NvmlSymbol#signature()}) takes them (JNA's
     * mapping: {@code byte[]} for {@code char *}, {@code IntByReference} for {@code int *}, {@code PointerByReference}
     * for {@code nvmlDevice_t *}, a {@link NvmlStructs} structure for a struct pointer) and returns its
     * {@code nvmlReturn_t} unchanged; {@link #FUNCTION_NOT_FOUND} for an optional symbol the library lacks.
     */
    public int call(NvmlSymbol symbol, Object... args) {
        Function f = functions.get(symbol);
        if (f == null) {
            return FUNCTION_NOT_FOUND;
        }
        return f.invokeInt(args);
    }

    /** {@code nvmlErrorString}: a static string, never freed. */
    public String errorString(int result) {
        Pointer p = functions.get(NvmlSymbol.ERROR_STRING).invokePointer(new Object[] {result});
        return p == null ? "" : p.getString(0, "UTF-8");
    }

    /** Unloads the library (dlclose). Call {@link NvmlSymbol#SHUTDOWN} first. */
    @Override
    public void close() {
        library.close();
    }
}
