package io.nodelabeller.source.nvidia;

import io.nodelabeller.label.LabelDoc;

import java.util.List;

/**
 * {@code cuda.driver.*} / {@code cuda.driver-version.*} from the driver version string (parts verbatim, revision
 * empty with two parts) and {@code cuda.runtime.*} / {@code cuda.runtime-version.*} from the CUDA version the
 * driver supports. Where GFD stops with an error (a version it cannot split), these labels alone are omitted.
 */
final class VersionLabeler extends GpuLabeler {

    @Override
    public List<LabelDoc> docs() {
        String driver = "nvmlSystemGetDriverVersion";
        String cuda = "nvmlSystemGetCudaDriverVersion";
        return List.of(
                Out.doc("cuda.driver.major", driver, "580", "Driver version, first part (older name)."),
                Out.doc("cuda.driver.minor", driver, "159", "Driver version, second part (older name)."),
                Out.doc("cuda.driver.rev", driver, "04", "Driver version, third part, empty when there is none (older name)."),
                Out.doc("cuda.driver-version.major", driver, "580", "Driver version, first part."),
                Out.doc("cuda.driver-version.minor", driver, "159", "Driver version, second part."),
                Out.doc("cuda.driver-version.revision", driver, "04", "Driver version, third part, empty when there is none."),
                Out.doc("cuda.driver-version.full", driver, "580.159.04", "Driver version as the driver reports it."),
                Out.doc("cuda.runtime.major", cuda, "13", "Major CUDA version the driver supports (older name)."),
                Out.doc("cuda.runtime.minor", cuda, "0", "Minor CUDA version the driver supports (older name)."),
                Out.doc("cuda.runtime-version.major", cuda, "13", "Major CUDA version the driver supports."),
                Out.doc("cuda.runtime-version.minor", cuda, "0", "Minor CUDA version the driver supports."),
                Out.doc("cuda.runtime-version.full", cuda, "13.0", "<major>.<minor> CUDA version the driver supports."));
    }

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
