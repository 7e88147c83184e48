package io.nodelabeller.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * The ResourceSlice the NVIDIA DRA driver for GPUs (k8s-dra-driver-gpu, static MIG, no DynamicMIG) publishes for a
 * node, rendered as that driver shapes it (cmd/gpu-kubelet-plugin/deviceinfo.go, mig.go, nvlib.go): one pool named
 * after the node, one slice; a device {@code gpu-<minor>} per GPU without MIG and, for a GPU with MIG enabled, only its
 * MIG devices {@code gpu-<minor>-mig-<profile>-<profileId>-<placementStart>}. Versions are semantic versions
 * (Masterminds/semver: {@code 580.159.04} is {@code 580.159.4}); the PCI bus ID is the sysfs address
 * ({@code resource.kubernetes.io/pciBusID}, k8s.io/dynamic-resource-allocation/deviceattribute); memory capacities are
 * bytes as Quantities.
 */
public final class DraDriver {

    public static final String NAME = "gpu.nvidia.com";

    /** One GPU as the driver reads it from NVML. */
    record Gpu(int minor, String productName, String uuid, long memoryBytes, String computeCapability, String nvmlBusId,
               boolean migEnabled, List<Mig> migs) {
    }

    /** One MIG device: its profile as go-nvlib prints it, its GPU-instance profile, UUID and placement start. */
    record Mig(String profile, FakeNvml.Profile gi, String uuid, int placementStart) {
    }

    private DraDriver() {
    }

    static Map<String, Object> slice(String node, String driverVersion, int cuda, int count, IntFunction<Gpu> gpus) {
        List<Object> devices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Gpu g = gpus.apply(i);
            Map<String, Object> common = new LinkedHashMap<>();
            common.put("productName", string(g.productName()));
            common.put("brand", string("Nvidia"));
            common.put("architecture", string(architecture(g.computeCapability())));
            common.put("cudaComputeCapability", version(semver(g.computeCapability())));
            common.put("driverVersion", version(semver(driverVersion)));
            common.put("cudaDriverVersion", version(semver((cuda / 1000) + "." + (cuda % 1000) / 10)));
            common.put("resource.kubernetes.io/pciBusID", string(sysfs(g.nvmlBusId())));
            common.put("resource.kubernetes.io/pcieRoot", string("pci0000:00"));
            if (!g.migEnabled()) {
                Map<String, Object> attrs = new LinkedHashMap<>();
                attrs.put("type", string("gpu"));
                attrs.put("uuid", string(g.uuid()));
                attrs.putAll(common);
                devices.add(Map.of("name", "gpu-" + g.minor(), "attributes", attrs,
                        "capacity", Map.of("memory", Map.of("value", quantity(g.memoryBytes())))));
                continue;
            }
            for (Mig m : g.migs()) {
                Map<String, Object> attrs = new LinkedHashMap<>();
                attrs.put("type", string("mig"));
                attrs.put("parentUUID", string(g.uuid()));
                attrs.put("profile", string(m.profile()));
                attrs.putAll(common);
                attrs.put("uuid", string(m.uuid()));
                Map<String, Object> capacity = new LinkedHashMap<>();
                capacity.put("multiprocessors", Map.of("value", Integer.toString(m.gi().sm())));
                capacity.put("copyEngines", Map.of("value", Integer.toString(m.gi().copyEngines())));
                capacity.put("decoders", Map.of("value", Integer.toString(m.gi().decoders())));
                capacity.put("encoders", Map.of("value", Integer.toString(m.gi().encoders())));
                capacity.put("jpegEngines", Map.of("value", Integer.toString(m.gi().jpegs())));
                capacity.put("ofaEngines", Map.of("value", Integer.toString(m.gi().ofas())));
                capacity.put("memory", Map.of("value", quantity(m.gi().memoryMiB() * 1024 * 1024)));
                for (int s = m.placementStart(); s < m.placementStart() + m.gi().slices(); s++) {
                    capacity.put("memorySlice" + s, Map.of("value", "1"));
                }
                String name = "gpu-" + g.minor() + "-mig-" + m.profile().replace(".", "").replace("+", "-")
                        .toLowerCase(Locale.ROOT) + "-" + m.gi().id() + "-" + m.placementStart();
                devices.add(Map.of("name", name, "attributes", attrs, "capacity", capacity));
            }
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("driver", NAME);
        spec.put("nodeName", node);
        spec.put("pool", Map.of("name", node, "generation", 1, "resourceSliceCount", 1));
        spec.put("devices", devices);
        Map<String, Object> slice = new LinkedHashMap<>();
        slice.put("apiVersion", "resource.k8s.io/v1");
        slice.put("kind", "ResourceSlice");
        slice.put("metadata", Map.of("name", node + "-" + NAME + "-x7k2p"));
        slice.put("spec", spec);
        return slice;
    }

    /** go-nvlib's architecture name for a compute capability (the ones the fakes have). */
    static String architecture(String cc) {
        return switch (cc) {
            case "7.5" -> "Turing";
            case "8.0", "8.6" -> "Ampere";
            case "8.9" -> "Ada Lovelace";
            case "9.0" -> "Hopper";
            default -> "Blackwell";
        };
    }

    /** Masterminds/semver's coerced version: missing parts 0, leading zeros dropped ({@code 580.159.04} → {@code 580.159.4}). */
    static String semver(String v) {
        String[] p = v.split("\\.");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(i < p.length ? Long.toString(Long.parseLong(p[i])) : "0");
        }
        return String.join(".", out);
    }

    /** NVML's bus id ({@code 00000000:07:00.0}) as sysfs writes the address ({@code 0000:07:00.0}). */
    static String sysfs(String nvml) {
        return nvml.substring(4).toLowerCase(Locale.ROOT);
    }

    /** A byte count as a BinarySI Quantity, as resource.NewQuantity(n, BinarySI).String() writes it. */
    static String quantity(long bytes) {
        String[] suffixes = {"", "Ki", "Mi", "Gi", "Ti"};
        int i = 0;
        while (i < suffixes.length - 1 && bytes % 1024 == 0 && bytes != 0) {
            bytes /= 1024;
            i++;
        }
        return bytes + suffixes[i];
    }

    private static Map<String, Object> string(String v) {
        return Map.of("string", v);
    }

    private static Map<String, Object> version(String v) {
        return Map.of("version", v);
    }
}
