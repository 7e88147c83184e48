package io.nodelabeller.nvml;

import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;

/**
 * One NVML session: {@code nvmlInit_v2} on {@link #open}, {@code nvmlShutdown} and unloading of the library on
 * {@link #close}, so use it with try-with-resources. Every failing call throws {@link NvmlException} with the
 * return code and NVML's {@code nvmlErrorString}. Opening a session per discovery is what lets a driver that
 * was not ready at start-up be found later (GFD gives up until restarted).
 *
 * <p>One session at a time per process: {@link #open} waits for the previous one to be closed, because closing
 * unloads the library that another session would still be calling.
 */
public final class Nvml implements AutoCloseable {

    private static final Semaphore ONE_SESSION = new Semaphore(1);

    private final NvmlLibrary lib;
    private boolean closed;

    private Nvml(NvmlLibrary lib) {
        this.lib = lib;
    }

    /**
     * Loads {@code library} (a path, or null for {@code libnvidia-ml.so.1} from the search path) and initialises
     * NVML. Throws {@link NvmlException}: code 12 when the library is missing, 13 when a required symbol is, or
     * {@code nvmlInit_v2}'s code (9 driver not loaded, 18 version mismatch, ...).
     */
    public static Nvml open(String library) throws NvmlException {
        ONE_SESSION.acquireUninterruptibly();
        NvmlLibrary lib = null;
        try {
            lib = NvmlLibrary.load(library);
            int rc = lib.call(NvmlSymbol.INIT);
            if (rc != NvmlLibrary.SUCCESS) {
                throw new NvmlException(NvmlSymbol.INIT.symbol(), rc, lib.errorString(rc));
            }
            return new Nvml(lib);
        } catch (NvmlException | RuntimeException | Error e) {
            if (lib != null) {
                lib.close();
            }
            ONE_SESSION.release();
            throw e;
        }
    }

    /** The raw binding, for calls this class does not wrap. */
    public NvmlLibrary library() {
        return lib;
    }

    /** {@code nvmlSystemGetDriverVersion}, e.g. "580.159.04". */
    public String driverVersion() throws NvmlException {
        byte[] buf = new byte[NvmlLibrary.DRIVER_VERSION_BUFFER];
        invoke(NvmlSymbol.DRIVER_VERSION, buf, buf.length);
        return text(buf);
    }

    /** {@code nvmlSystemGetCudaDriverVersion}: 1000 × major + 10 × minor, e.g. 13000. */
    public int cudaDriverVersion() throws NvmlException {
        IntByReference v = new IntByReference();
        invoke(NvmlSymbol.CUDA_DRIVER_VERSION, v);
        return v.getValue();
    }

    /** {@code nvmlDeviceGetCount_v2}. */
    public int deviceCount() throws NvmlException {
        IntByReference n = new IntByReference();
        invoke(NvmlSymbol.DEVICE_COUNT, n);
        return n.getValue();
    }

    /** {@code nvmlDeviceGetHandleByIndex_v2}. */
    public NvmlDevice device(int index) throws NvmlException {
        PointerByReference handle = new PointerByReference();
        invoke(NvmlSymbol.HANDLE_BY_INDEX, index, handle);
        return new NvmlDevice(this, handle.getValue());
    }

    /** Calls {@code nvmlShutdown} and unloads the library; never throws. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            lib.call(NvmlSymbol.SHUTDOWN);
        } finally {
            lib.close();
            ONE_SESSION.release();
        }
    }

    /** Calls {@code symbol} and throws its error unless it answered SUCCESS. */
    void invoke(NvmlSymbol symbol, Object... args) throws NvmlException {
        check(symbol, lib.call(symbol, args));
    }

    void check(NvmlSymbol call, int rc) throws NvmlException {
        if (rc != NvmlLibrary.SUCCESS) {
            throw new NvmlException(call.symbol(), rc, lib.errorString(rc));
        }
    }

    NvmlLibrary lib() {
        return lib;
    }

    /** A NUL-terminated C string from a buffer (UTF-8; NVML's strings are ASCII). */
    static String text(byte[] buf) {
        int n = 0;
        while (n < buf.length && buf[n] != 0) {
            n++;
        }
        return new String(buf, 0, n, StandardCharsets.UTF_8);
    }
}
