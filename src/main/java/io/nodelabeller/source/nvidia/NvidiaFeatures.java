package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.Instance;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nvidia source's features, one vocabulary: typed records that the source renders into features (for the
 * labelers, custom rules and the NodeFeature object) and that the GPU labelers parse back, with the keys written
 * once, here. Tests build fake nodes from the same records.
 *
 * <ul>
 *   <li>{@code nvidia.nvml}: {@link Nvml} — whether NVML answered, the driver and CUDA versions, the device count;</li>
 *   <li>{@code nvidia.gpu}: one {@link Gpu} instance per GPU index;</li>
 *   <li>{@code nvidia.mig}: one {@link Mig} instance per MIG device;</li>
 *   <li>{@code nvidia.machine}: {@code product_name}, the DMI product name;</li>
 *   <li>{@code nvidia.vgpu}: one {@link Vgpu} instance per vGPU in the PCI configuration space
 *       ({@code sources.nvidia.vgpu}).</li>
 * </ul>
 * Integers are written in decimal (NVML's unsigned values as unsigned); a value NVML did not give is left out.
 */
public final class NvidiaFeatures {

    /** Feature names within the nvidia source (the full keys are {@code nvidia.<name>}). */
    public static final String NVML = "nvml";
    public static final String GPU = "gpu";
    public static final String MIG = "mig";
    public static final String MACHINE = "machine";
    public static final String VGPU = "vgpu";
    public static final String PRODUCT_NAME = "product_name";

    private NvidiaFeatures() {
    }

    /** {@code nvidia.vgpu}: a vGPU's PCI address and the driver of the vGPU manager on its host. */
    public record Vgpu(String address, String hostDriverVersion, String hostDriverBranch) {

        public Map<String, String> attributes() {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("address", address);
            a.put("hostDriverVersion", hostDriverVersion);
            a.put("hostDriverBranch", hostDriverBranch);
            return a;
        }

        static Vgpu from(Instance i) {
            return new Vgpu(i.get("address"), i.get("hostDriverVersion"), i.get("hostDriverBranch"));
        }
    }

    /** {@code nvidia.nvml}. {@code ok} false: NVML could not be loaded or initialised ({@code error}, {@code errorCode}). */
    public record Nvml(boolean ok, String error, Integer errorCode, String driverVersion, Integer cudaDriverVersion,
                       Integer deviceCount) {

        public static Nvml unavailable(String error, Integer errorCode) {
            return new Nvml(false, error, errorCode, null, null, null);
        }

        public Map<String, String> attributes() {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("status", ok ? "ok" : "unavailable");
            put(a, "error", error);
            put(a, "errorCode", errorCode);
            put(a, "driverVersion", driverVersion);
            put(a, "cudaDriverVersion", cudaDriverVersion);
            put(a, "deviceCount", deviceCount);
            return a;
        }

        /** Null when the source did not run (no attributes). */
        static Nvml from(Map<String, String> a) {
            if (a.isEmpty()) {
                return null;
            }
            return new Nvml("ok".equals(a.get("status")), a.get("error"), integer(a.get("errorCode")),
                    a.get("driverVersion"), integer(a.get("cudaDriverVersion")), integer(a.get("deviceCount")));
        }
    }

    /** nvmlDeviceGetGpuFabricInfo: cluster UUID, clique ID, state (3 = completed) and the registration's status. */
    public record Fabric(String clusterUuid, Long cliqueId, Integer state, Integer status) {
    }

    /**
     * One {@code nvidia.gpu} instance. {@code error} set: NVML could not query the GPU (only {@code index} and the
     * error are known). {@code migEnabled} is null when the GPU is not MIG-capable.
     */
    public record Gpu(int index, String name, String uuid, Long memoryTotal, Integer computeMajor, Integer computeMinor,
                      String pciBusId, String pciDeviceId, boolean migCapable, Boolean migEnabled, Fabric fabric,
                      Long numaNode, String error, Integer errorCode) {

        public static Gpu failed(int index, String error, Integer errorCode) {
            return new Gpu(index, null, null, null, null, null, null, null, false, null, null, null, error, errorCode);
        }

        public Map<String, String> attributes() {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("index", Integer.toString(index));
            if (error != null) {
                a.put("error", error);
                put(a, "errorCode", errorCode);
                return a;
            }
            put(a, "name", name);
            put(a, "uuid", uuid);
            put(a, "memory.total", memoryTotal);
            put(a, "compute.major", computeMajor);
            put(a, "compute.minor", computeMinor);
            put(a, "pci.busId", pciBusId);
            put(a, "pci.deviceId", pciDeviceId);
            a.put("mig.capable", Boolean.toString(migCapable));
            put(a, "mig.enabled", migEnabled);
            if (fabric != null) {
                put(a, "fabric.clusterUuid", fabric.clusterUuid());
                put(a, "fabric.cliqueId", fabric.cliqueId());
                put(a, "fabric.state", fabric.state());
                put(a, "fabric.status", fabric.status());
            }
            put(a, "numaNode", numaNode);
            return a;
        }

        /** Null when the instance has no readable index. */
        static Gpu from(Instance g) {
            Integer index = integer(g.get("index"));
            if (index == null) {
                return null;
            }
            Fabric fabric = g.has("fabric.clusterUuid") || g.has("fabric.state")
                    ? new Fabric(g.get("fabric.clusterUuid"), longValue(g.get("fabric.cliqueId")),
                    integer(g.get("fabric.state")), integer(g.get("fabric.status")))
                    : null;
            return new Gpu(index, g.get("name"), g.get("uuid"), longValue(g.get("memory.total")),
                    integer(g.get("compute.major")), integer(g.get("compute.minor")), g.get("pci.busId"),
                    g.get("pci.deviceId"), "true".equals(g.get("mig.capable")),
                    g.has("mig.enabled") ? Boolean.valueOf(g.get("mig.enabled")) : null, fabric,
                    longValue(g.get("numaNode")), g.get("error"), integer(g.get("errorCode")));
        }
    }

    /**
     * One {@code nvidia.mig} instance: the MIG device in slot {@code index} of GPU {@code parent}, its
     * nvmlDeviceGetAttributes_v2 values by field name ({@code multiprocessorCount}, {@code gpuInstanceSliceCount},
     * ...; written {@code attr.<field>}) and its profile name as NVIDIA's tools print it ({@code 1g.10gb+me}).
     */
    public record Mig(int parent, int index, String name, String uuid, Long memoryTotal, Map<String, Long> attrs,
                      String profile, String error, Integer errorCode) {

        public Mig {
            attrs = attrs == null ? Map.of() : Map.copyOf(attrs);
        }

        /** A MIG device NVML could not query; {@code name} when it was read before the failing call, else null. */
        public static Mig failed(int parent, int index, String name, String error, Integer errorCode) {
            return new Mig(parent, index, name, null, null, Map.of(), null, error, errorCode);
        }

        public Map<String, String> attributes() {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("parent", Integer.toString(parent));
            a.put("index", Integer.toString(index));
            put(a, "name", name);
            if (error != null) {
                a.put("error", error);
                put(a, "errorCode", errorCode);
                return a;
            }
            put(a, "uuid", uuid);
            put(a, "memory.total", memoryTotal);
            new TreeMap<>(attrs).forEach((k, v) -> a.put("attr." + k, Long.toString(v)));
            put(a, "profile", profile);
            return a;
        }

        /** Null when the instance has no readable parent or index. */
        static Mig from(Instance m) {
            Integer parent = integer(m.get("parent"));
            Integer index = integer(m.get("index"));
            if (parent == null || index == null) {
                return null;
            }
            Map<String, Long> attrs = new TreeMap<>();
            m.attributes().forEach((k, v) -> {
                Long n = longValue(v);
                if (k.startsWith("attr.") && n != null) {
                    attrs.put(k.substring(5), n);
                }
            });
            return new Mig(parent, index, m.get("name"), m.get("uuid"), longValue(m.get("memory.total")), attrs,
                    m.get("profile"), m.get("error"), integer(m.get("errorCode")));
        }
    }

    private static void put(Map<String, String> a, String key, Object value) {
        if (value != null) {
            a.put(key, value.toString());
        }
    }

    static Integer integer(String s) {
        Long v = longValue(s);
        return v == null || v != v.intValue() ? null : v.intValue();
    }

    static Long longValue(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Long.valueOf(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
