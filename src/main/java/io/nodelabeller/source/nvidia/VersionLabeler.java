package io.nodelabeller.source.nvidia;


import java.util.List;

/**
 * {@code cuda.driver.*} / {@code cuda.driver-version.*} from the driver version string (parts verbatim, revision
 * empty with two parts) and {@code cuda.runtime.*} / {@code cuda.runtime-version.*} from the CUDA version the
 * driver supports. Where GFD stops with an error (a version it cannot split), these labels alone are omitted.
 */
final class VersionLabeler extends GpuLabeler {

    @Override
    void label(GpuFacts facts, Out out) {
        String driver = facts.driverVersion();
        if (driver == null) {
            out.note("nvmlSystemGetDriverVersion failed; nvidia.com/cuda.driver* labels are omitted");
        } else {
            String[] parts = driver.split("\\.", -1);
            if (parts.length < 2 || parts.length > 3) {
                out.note("driver version '" + driver + "' does not match X.Y[.Z]; nvidia.com/cuda.driver* labels are omitted");
            } else {
                String ev = "nvmlSystemGetDriverVersion = '" + driver + "'";
                String rev = parts.length == 3 ? parts[2] : "";
                out.put("cuda.driver.major", parts[0], ev);
                out.put("cuda.driver.minor", parts[1], ev);
                out.put("cuda.driver.rev", rev, ev);
                out.put("cuda.driver-version.major", parts[0], ev);
                out.put("cuda.driver-version.minor", parts[1], ev);
                out.put("cuda.driver-version.revision", rev, ev);
                out.put("cuda.driver-version.full", driver, ev);
            }
        }
        Integer cuda = facts.cudaDriverVersion();
        if (cuda == null) {
            out.note("nvmlSystemGetCudaDriverVersion failed; nvidia.com/cuda.runtime* labels are omitted");
            return;
        }
        int major = cuda / 1000;
        int minor = (cuda % 1000) / 10;
        String ev = "nvmlSystemGetCudaDriverVersion = " + cuda;
        out.put("cuda.runtime.major", major, ev);
        out.put("cuda.runtime.minor", minor, ev);
        out.put("cuda.runtime-version.major", major, ev);
        out.put("cuda.runtime-version.minor", minor, ev);
        out.put("cuda.runtime-version.full", major + "." + minor, ev);
    }
}
