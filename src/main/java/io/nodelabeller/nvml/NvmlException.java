package io.nodelabeller.nvml;

/**
 * An NVML call that did not return {@code NVML_SUCCESS}, or a library that could not be loaded (code 12,
 * {@code NVML_ERROR_LIBRARY_NOT_FOUND}) or lacks a required symbol (code 13, {@code NVML_ERROR_FUNCTION_NOT_FOUND}).
 * The message is one line: {@code nvmlInit_v2 failed: 9 (Driver Not Loaded)}.
 */
public final class NvmlException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int code;
    private final String call;

    /** A call that returned {@code code}; {@code description} is NVML's {@code nvmlErrorString(code)}. */
    public NvmlException(String call, int code, String description) {
        super(call + " failed: " + code + " (" + description + ")");
        this.code = code;
        this.call = call;
    }

    /** A loading problem described by {@code message} alone, with an NVML code for it. */
    NvmlException(int code, String message) {
        super(message);
        this.code = code;
        this.call = null;
    }

    /** The {@code nvmlReturn_t} value. */
    public int code() {
        return code;
    }

    /** The NVML function that failed, or null for a loading problem. */
    public String call() {
        return call;
    }

    public boolean isNotSupported() {
        return code == NvmlLibrary.NOT_SUPPORTED;
    }
}
