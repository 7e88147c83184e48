package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.Instance;

import java.util.LinkedHashMap;
import java.util.List;
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
     * One {@code nvidia.gpu} instance: its attributes, named values read and written through typed accessors (no
     * positional list of values to get wrong). {@code error} set: NVML could not query the GPU (only {@code index}
     * and the error are known). {@code migEnabled} is null when the GPU is not MIG-capable; every other value is null
     * when NVML did not give it. Build one with {@link #of}.
     */
    public static final class Gpu {

        private final Map<String, String> a;

        private Gpu(Map<String, String> attributes) {
            this.a = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        }

        /** A GPU NVML answered for: set its values on the builder by name. */
        public static Builder of(int index) {
            return new Builder(index);
        }

        public static Gpu failed(int index, String error, Integer errorCode) {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("index", Integer.toString(index));
            a.put("error", error);
            put(a, "errorCode", errorCode);
            return new Gpu(a);
        }

        public Map<String, String> attributes() {
            return a;
        }

        public int index() {
            return Integer.parseInt(a.get("index"));
        }

        public String name() {
            return a.get("name");
        }

        public String uuid() {
            return a.get("uuid");
        }

        public Long memoryTotal() {
            return longValue(a.get("memory.total"));
        }

        public Integer computeMajor() {
            return integer(a.get("compute.major"));
        }

        public Integer computeMinor() {
            return integer(a.get("compute.minor"));
        }

        public String pciBusId() {
            return a.get("pci.busId");
        }

        public String pciDeviceId() {
            return a.get("pci.deviceId");
        }

        public boolean migCapable() {
            return "true".equals(a.get("mig.capable"));
        }

        public Boolean migEnabled() {
            return a.containsKey("mig.enabled") ? Boolean.valueOf(a.get("mig.enabled")) : null;
        }

        public Fabric fabric() {
            return a.containsKey("fabric.clusterUuid") || a.containsKey("fabric.state")
                    ? new Fabric(a.get("fabric.clusterUuid"), longValue(a.get("fabric.cliqueId")),
                    integer(a.get("fabric.state")), integer(a.get("fabric.status")))
                    : null;
        }

        public Long numaNode() {
            return longValue(a.get("numaNode"));
        }

        public String error() {
            return a.get("error");
        }

        public Integer errorCode() {
            return integer(a.get("errorCode"));
        }

        /** A builder holding these values, to change some. */
        public Builder toBuilder() {
            return new Builder(a);
        }

        /** Null when the instance has no readable index. */
        static Gpu from(Instance g) {
            return integer(g.get("index")) == null ? null : new Gpu(g.attributes());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Gpu other && a.equals(other.a);
        }

        @Override
        public int hashCode() {
            return a.hashCode();
        }

        @Override
        public String toString() {
            return "Gpu" + a;
        }

        /** The values of one GPU, each set by name; a null value is left out. */
        public static final class Builder {

            private final Map<String, String> a;

            private Builder(int index) {
                this.a = new LinkedHashMap<>();
                a.put("index", Integer.toString(index));
                a.put("mig.capable", "false");
            }

            private Builder(Map<String, String> from) {
                this.a = new LinkedHashMap<>(from);
            }

            private Builder set(String key, Object value) {
                if (value == null) {
                    a.remove(key);
                } else {
                    a.put(key, value.toString());
                }
                return this;
            }

            public Builder index(int index) {
                return set("index", index);
            }

            public Builder name(String name) {
                return set("name", name);
            }

            public Builder uuid(String uuid) {
                return set("uuid", uuid);
            }

            /** nvmlDeviceGetMemoryInfo's total, bytes. */
            public Builder memoryTotal(Long bytes) {
                return set("memory.total", bytes);
            }

            public Builder computeCapability(Integer major, Integer minor) {
                return set("compute.major", major).set("compute.minor", minor);
            }

            public Builder pci(String busId, String deviceId) {
                return set("pci.busId", busId).set("pci.deviceId", deviceId);
            }

            /** MIG-capable (nvmlDeviceGetMigMode answered) and, if so, whether MIG is enabled. */
            public Builder mig(boolean capable, Boolean enabled) {
                return set("mig.capable", capable).set("mig.enabled", capable ? enabled : null);
            }

            public Builder fabric(Fabric fabric) {
                set("fabric.clusterUuid", fabric == null ? null : fabric.clusterUuid());
                set("fabric.cliqueId", fabric == null ? null : fabric.cliqueId());
                set("fabric.state", fabric == null ? null : fabric.state());
                return set("fabric.status", fabric == null ? null : fabric.status());
            }

            public Builder numaNode(Long node) {
                return set("numaNode", node);
            }

            /** The attributes in one order, whatever the order they were set in: the instance reads the same every cycle. */
            public Gpu build() {
                Map<String, String> ordered = new LinkedHashMap<>();
                ORDER.stream().filter(a::containsKey).forEach(k -> ordered.put(k, a.get(k)));
                a.forEach(ordered::putIfAbsent);
                return new Gpu(ordered);
            }

            private static final List<String> ORDER = List.of("index", "name", "uuid", "memory.total", "compute.major",
                    "compute.minor", "pci.busId", "pci.deviceId", "mig.capable", "mig.enabled", "fabric.clusterUuid",
                    "fabric.cliqueId", "fabric.state", "fabric.status", "numaNode");
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
