package io.nodelabeller.testing;


import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Configures the fake {@code libnvidia-ml.so.1} built from {@code src/test/c/fake_nvml.c} during the Maven test
 * phase (into {@code target/fake-nvml/}). A test describes the machine, installs it into its own directory and
 * hands the returned path to {@code --nvml-library} or {@code Options}:
 *
 * <pre>{@code
 * Path lib = FakeNvml.nvml()
 *         .driver("580.159.04").cuda(13000)
 *         .gpu(FakeNvml.a100_40gb().migEnabled()
 *                 .mig(0, FakeNvml.A100_40GB.get("1g.5gb"))
 *                 .mig(1, FakeNvml.A100_40GB.get("3g.20gb"), 1))   // a 1c.3g.20gb compute instance
 *         .gpu(FakeNvml.gpu("NVIDIA A100-SXM4-40GB").memoryMiB(40960).compute(8, 0).rc("nvmlDeviceGetHandleByIndex_v2", 15))
 *         .install(tempDir);
 * }</pre>
 *
 * The library reads {@code fake-nvml.conf} next to itself at every first {@code nvmlInit_v2}, so
 * {@link #writeConfig} between two discoveries changes the answers of the next one; it appends each
 * {@code nvmlInit_v2}/{@code nvmlShutdown} to {@code fake-nvml.log} ({@link #calls}). Every test gets its own
 * copy of the library file, so nothing is shared between tests. Without gcc the library is missing and
 * {@link #install} skips the test with a warning (fails it when {@code CI=true}).
 */
public final class FakeNvml {

    /** Which build of the fake: all symbols, or one that lacks some (see {@code build.sh}). */
    public enum Variant {
        FULL(""), NO_OPTIONAL("no-optional"), NO_COUNT_V2("no-count-v2");

        private final String dir;

        Variant(String dir) {
            this.dir = dir;
        }
    }

    /**
     * One GPU-instance profile as {@code nvmlDeviceGetGpuInstanceProfileInfo(index)} answers it. {@code name}
     * is the name NVIDIA's {@code nvidia-smi mig -lgip} lists for it (test data, not computed).
     */
    public record Profile(String name, int index, int id, int slices, int instances, int sm, int copyEngines,
                          int decoders, int encoders, int jpegs, int ofas, long memoryMiB) {
        String line() {
            return "profile " + index + " " + id + " " + slices + " " + instances + " " + sm + " " + copyEngines + " "
                    + decoders + " " + encoders + " " + jpegs + " " + ofas + " " + memoryMiB;
        }
    }

    /** A GPU model's profile set, by name. */
    public record Profiles(Map<String, Profile> byName) {
        static Profiles of(Profile... profiles) {
            Map<String, Profile> m = new LinkedHashMap<>();
            for (Profile p : profiles) {
                m.put(p.name(), p);
            }
            return new Profiles(m);
        }

        public Profile get(String name) {
            Profile p = byName.get(name);
            if (p == null) {
                throw new IllegalArgumentException("no profile " + name + " in " + byName.keySet());
            }
            return p;
        }

        public List<Profile> all() {
            return List.copyOf(byName.values());
        }
    }

    /*
     * Profile sets shaped after `nvidia-smi mig -lgip` listings (NVIDIA MIG user guide): profile indexes and ids
     * as NVML has them (0 = 1_SLICE, 1 = 2_SLICE, 2 = 3_SLICE, 3 = 4_SLICE, 4 = 7_SLICE, 7 = 1_SLICE_REV1 "+me",
     * 9 = 1_SLICE_REV2), memory in MiB from the listings' GiB column; SM/engine counts as listed there (A100-40GB's
     * also match go-nvml's mock), good enough for a fake.
     */
    public static final Profiles A100_40GB = Profiles.of(
            new Profile("1g.5gb", 0, 19, 1, 7, 14, 1, 0, 0, 0, 0, 4864),
            new Profile("1g.5gb+me", 7, 20, 1, 1, 14, 1, 1, 0, 1, 1, 4864),
            new Profile("1g.10gb", 9, 15, 1, 4, 14, 1, 1, 0, 0, 0, 9856),
            new Profile("2g.10gb", 1, 14, 2, 3, 28, 2, 1, 0, 0, 0, 9856),
            new Profile("3g.20gb", 2, 9, 3, 2, 42, 3, 2, 0, 0, 0, 19968),
            new Profile("4g.20gb", 3, 5, 4, 1, 56, 4, 2, 0, 0, 0, 19968),
            new Profile("7g.40gb", 4, 0, 7, 1, 98, 7, 5, 0, 1, 1, 40192));

    public static final Profiles A100_80GB = Profiles.of(
            new Profile("1g.10gb", 0, 19, 1, 7, 14, 1, 0, 0, 0, 0, 9728),
            new Profile("1g.10gb+me", 7, 20, 1, 1, 14, 1, 1, 0, 1, 1, 9728),
            new Profile("1g.20gb", 9, 15, 1, 4, 14, 1, 1, 0, 0, 0, 19968),
            new Profile("2g.20gb", 1, 14, 2, 3, 28, 2, 1, 0, 0, 0, 19968),
            new Profile("3g.40gb", 2, 9, 3, 2, 42, 3, 2, 0, 0, 0, 40192),
            new Profile("4g.40gb", 3, 5, 4, 1, 56, 4, 2, 0, 0, 0, 40192),
            new Profile("7g.80gb", 4, 0, 7, 1, 98, 7, 5, 0, 1, 1, 80896));

    public static final Profiles H100_80GB = Profiles.of(
            new Profile("1g.10gb", 0, 19, 1, 7, 16, 1, 1, 0, 1, 0, 9984),
            new Profile("1g.10gb+me", 7, 20, 1, 1, 16, 1, 1, 0, 1, 1, 9984),
            new Profile("1g.20gb", 9, 15, 1, 4, 26, 1, 1, 0, 1, 0, 20096),
            new Profile("2g.20gb", 1, 14, 2, 3, 32, 2, 2, 0, 2, 0, 20096),
            new Profile("3g.40gb", 2, 9, 3, 2, 60, 3, 3, 0, 3, 0, 40448),
            new Profile("4g.40gb", 3, 5, 4, 1, 64, 4, 4, 0, 4, 0, 40448),
            new Profile("7g.80gb", 4, 0, 7, 1, 132, 8, 7, 0, 7, 1, 81152));

    private String driver = "580.159.04";
    private int cuda = 13000;
    private final Map<String, Integer> rcs = new LinkedHashMap<>();
    private final Map<Integer, String> errors = new TreeMap<>();
    private final List<Gpu> gpus = new ArrayList<>();
    private Variant variant = Variant.FULL;

    private FakeNvml() {
    }

    /** An NVML with driver 580.159.04, CUDA 13000 and no GPUs yet. */
    public static FakeNvml nvml() {
        return new FakeNvml();
    }

    public FakeNvml driver(String version) {
        this.driver = version;
        return this;
    }

    public FakeNvml cuda(int version) {
        this.cuda = version;
        return this;
    }

    /** The return code of a system call: nvmlInit_v2, nvmlSystemGetDriverVersion, nvmlSystemGetCudaDriverVersion, nvmlDeviceGetCount_v2. */
    public FakeNvml rc(String function, int code) {
        rcs.put(function, code);
        return this;
    }

    /** What nvmlErrorString answers for {@code code} (a built-in table answers otherwise). */
    public FakeNvml errorString(int code, String text) {
        errors.put(code, text);
        return this;
    }

    public FakeNvml gpu(Gpu gpu) {
        gpus.add(gpu);
        return this;
    }

    /** {@code n} copies of {@code gpu} (each with its own index, UUID and bus id). */
    public FakeNvml gpus(int n, Gpu gpu) {
        for (int i = 0; i < n; i++) {
            gpus.add(gpu);
        }
        return this;
    }

    /**
     * What the NVIDIA DRA driver's kubelet plugin would publish for these GPUs on {@code node}: its ResourceSlice
     * ({@link DraDriver}).
     */
    public java.util.Map<String, Object> resourceSlice(String node) {
        return DraDriver.slice(node, driver, cuda, gpus.size(), i -> gpus.get(i).dra(i));
    }

    public FakeNvml variant(Variant v) {
        this.variant = v;
        return this;
    }

    /** The configuration file's text. */
    public String config() {
        StringBuilder s = new StringBuilder("# fake NVML configuration written by FakeNvml\n");
        s.append("driver ").append(driver).append('\n');
        s.append("cuda ").append(cuda).append('\n');
        rcs.forEach((f, c) -> s.append("rc.").append(f).append(' ').append(c).append('\n'));
        errors.forEach((c, t) -> s.append("error.").append(c).append(' ').append(t).append('\n'));
        for (int i = 0; i < gpus.size(); i++) {
            gpus.get(i).append(s, i);
        }
        return s.toString();
    }

    /**
     * Copies the fake library into {@code dir} (once) and writes the configuration next to it; returns the
     * library's path. Skips the calling test when the library was not built (fails it when CI=true).
     */
    public Path install(Path dir) {
        Path built = built(variant);
        try {
            Files.createDirectories(dir);
            Path lib = dir.resolve("libnvidia-ml.so.1");
            if (!Files.exists(lib)) {
                Files.copy(built, lib, StandardCopyOption.COPY_ATTRIBUTES);
            }
            writeConfig(dir);
            return lib;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rewrites the configuration of a library installed in {@code dir}: the next nvmlInit_v2 reads it. */
    public void writeConfig(Path dir) {
        try {
            Files.writeString(dir.resolve("fake-nvml.conf"), config());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The nvmlInit_v2 / nvmlShutdown calls the library installed at {@code lib} has seen ("nvmlInit_v2 0", ...). */
    public static List<String> calls(Path lib) {
        Path log = lib.resolveSibling("fake-nvml.log");
        try {
            return Files.exists(log) ? Files.readAllLines(log) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The built library of {@code variant}; skips the test (or fails it under CI=true) when it is missing. */
    public static Path built(Variant variant) {
        Path dir = Path.of(System.getProperty("fakeNvml.dir", "target/fake-nvml"));
        Path lib = (variant.dir.isEmpty() ? dir : dir.resolve(variant.dir)).resolve("libnvidia-ml.so.1");
        Prerequisites.require(Files.isRegularFile(lib), "the fake NVML library " + lib.toAbsolutePath()
                + " was not built (is gcc installed?): native NVML test");
        return lib;
    }

    // ---- GPUs ----

    /** A GPU named {@code name}; everything else is unset (memory 0, compute 0.0, MIG not supported). */
    public static Gpu gpu(String name) {
        return new Gpu(name);
    }

    /** NVIDIA A100-SXM4-40GB: 40960 MiB, 8.0, PCI 0x20B010DE, MIG capable (disabled). */
    public static Gpu a100_40gb() {
        return gpu("NVIDIA A100-SXM4-40GB").memoryMiB(40960).compute(8, 0).pciDeviceId(0x20B010DE, 0x145F10DE)
                .migCapable().profiles(A100_40GB);
    }

    /** NVIDIA A100-SXM4-80GB: 81920 MiB, 8.0, PCI 0x20B210DE, MIG capable (disabled). */
    public static Gpu a100_80gb() {
        return gpu("NVIDIA A100-SXM4-80GB").memoryMiB(81920).compute(8, 0).pciDeviceId(0x20B210DE, 0x146310DE)
                .migCapable().profiles(A100_80GB);
    }

    /** NVIDIA H100 80GB HBM3: 81559 MiB, 9.0, PCI 0x233010DE, MIG capable (disabled). */
    public static Gpu h100_80gb() {
        return gpu("NVIDIA H100 80GB HBM3").memoryMiB(81559).compute(9, 0).pciDeviceId(0x233010DE, 0x16C110DE)
                .migCapable().profiles(H100_80GB);
    }

    /** Tesla T4: 15360 MiB, 7.5, PCI 0x1EB810DE, no MIG. */
    public static Gpu t4() {
        return gpu("Tesla T4").memoryMiB(15360).compute(7, 5).pciDeviceId(0x1EB810DE, 0x12A210DE);
    }

    /** One fake GPU. Unset UUID and bus id are derived from its index when installed. */
    public static final class Gpu {
        private final String name;
        private String uuid;
        private long memoryBytes;
        private int ccMajor;
        private int ccMinor;
        private String busId;
        private int pciDeviceId = 0x000010DE;
        private int pciSubSystemId;
        private Integer migCurrent;
        private int migPending;
        private int maxMig = 7;
        private String fabric;
        private Integer numa;
        private final List<Profile> profiles = new ArrayList<>();
        private final Map<Integer, MigDevice> migs = new TreeMap<>();
        private final Map<String, Integer> rcs = new LinkedHashMap<>();

        private Gpu(String name) {
            this.name = name;
        }

        private Gpu copy() {
            Gpu g = new Gpu(name);
            g.uuid = uuid;
            g.memoryBytes = memoryBytes;
            g.ccMajor = ccMajor;
            g.ccMinor = ccMinor;
            g.busId = busId;
            g.pciDeviceId = pciDeviceId;
            g.pciSubSystemId = pciSubSystemId;
            g.migCurrent = migCurrent;
            g.migPending = migPending;
            g.maxMig = maxMig;
            g.fabric = fabric;
            g.numa = numa;
            g.profiles.addAll(profiles);
            g.migs.putAll(migs);
            g.rcs.putAll(rcs);
            return g;
        }

        /** Builders return a modified copy, so a preset can be shared between GPUs and tests. */
        private Gpu with(java.util.function.Consumer<Gpu> change) {
            Gpu g = copy();
            change.accept(g);
            return g;
        }

        public Gpu uuid(String v) {
            return with(g -> g.uuid = v);
        }

        public Gpu memoryMiB(long mib) {
            return with(g -> g.memoryBytes = mib * 1024 * 1024);
        }

        public Gpu memoryBytes(long bytes) {
            return with(g -> g.memoryBytes = bytes);
        }

        public Gpu compute(int major, int minor) {
            return with(g -> {
                g.ccMajor = major;
                g.ccMinor = minor;
            });
        }

        /** Bus id as NVML prints it: "00000000:07:00.0". */
        public Gpu busId(String v) {
            return with(g -> g.busId = v);
        }

        /** {@code pciDeviceId} = device id &lt;&lt; 16 | vendor id, e.g. 0x20B010DE. */
        public Gpu pciDeviceId(int deviceId, int subSystemId) {
            return with(g -> {
                g.pciDeviceId = deviceId;
                g.pciSubSystemId = subSystemId;
            });
        }

        /** nvmlDeviceGetMigMode answers (0, 0). Without this it answers NOT_SUPPORTED. */
        public Gpu migCapable() {
            return with(g -> {
                g.migCurrent = 0;
                g.migPending = 0;
            });
        }

        /** nvmlDeviceGetMigMode answers (1, 1). */
        public Gpu migEnabled() {
            return with(g -> {
                g.migCurrent = 1;
                g.migPending = 1;
            });
        }

        public Gpu maxMigDevices(int n) {
            return with(g -> g.maxMig = n);
        }

        /** Fabric info: clusterUuid as 32 hex digits, NVML status, clique id, state (3 = completed). */
        public Gpu fabric(String clusterUuidHex, int status, int cliqueId, int state) {
            return with(g -> g.fabric = clusterUuidHex + " " + status + " " + cliqueId + " " + state);
        }

        public Gpu numaNode(int node) {
            return with(g -> g.numa = node);
        }

        /** The GPU-instance profiles nvmlDeviceGetGpuInstanceProfileInfo knows. */
        public Gpu profiles(Profiles set) {
            return with(g -> {
                g.profiles.clear();
                g.profiles.addAll(set.all());
            });
        }

        /** {@code count} MIG devices of {@code profile}, in slots 0 to count - 1 (7 × 1g.10gb: an A100 split whole). */
        public Gpu migAll(Profile profile, int count) {
            Gpu g = this;
            for (int slot = 0; slot < count; slot++) {
                g = g.mig(slot, profile);
            }
            return g;
        }

        /** A MIG device in {@code slot} whose compute instance uses the whole GPU instance of {@code profile}. */
        public Gpu mig(int slot, Profile profile) {
            return mig(slot, profile, profile.slices());
        }

        /**
         * A MIG device in {@code slot}: a compute instance of {@code ciSlices} slices on a GPU instance of
         * {@code profile}. Its attributes follow the profile (SMs in proportion to the slices).
         */
        public Gpu mig(int slot, Profile profile, int ciSlices) {
            String label = (ciSlices == profile.slices() ? "" : ciSlices + "c.") + profile.name();
            return migDevice(slot, new MigDevice(name + " MIG " + label, null, profile.memoryMiB() * 1024 * 1024,
                    slot, 0, profile.sm() * ciSlices / profile.slices(), profile.copyEngines(), profile.decoders(),
                    profile.encoders(), profile.jpegs(), profile.ofas(), profile.slices(), ciSlices, profile.memoryMiB(),
                    Map.of()));
        }

        /** A MIG device described field by field. */
        public Gpu migDevice(int slot, MigDevice device) {
            return with(g -> g.migs.put(slot, device));
        }

        /** The return code of {@code function} on this GPU, e.g. ("nvmlDeviceGetHandleByIndex_v2", 15). */
        public Gpu rc(String function, int code) {
            return with(g -> g.rcs.put(function, code));
        }

        /** This GPU, in slot {@code index}, as the DRA driver reads it from NVML. */
        DraDriver.Gpu dra(int index) {
            java.util.List<DraDriver.Mig> out = new java.util.ArrayList<>();
            int start = 0;
            for (MigDevice m : migs.values()) {
                String profile = m.name().substring(m.name().lastIndexOf(" MIG ") + 5);
                Profile gi = profiles.stream().filter(p -> p.slices() == m.gpuInstanceSlices()
                        && p.memoryMiB() == m.memoryMiB() && profile.endsWith(p.name())).findFirst().orElseThrow();
                out.add(new DraDriver.Mig(profile, gi, m.uuid() != null ? m.uuid()
                        : String.format("MIG-%04x%04x-0000-4000-8000-%012x", index, out.size(), out.size()), start));
                start += gi.slices();
            }
            return new DraDriver.Gpu(index, name, uuid != null ? uuid : String.format("GPU-%08x-0000-4000-8000-%012x", index, index),
                    memoryBytes, ccMajor + "." + ccMinor, busId != null ? busId : String.format("00000000:%02X:00.0", 0x07 + index * 8),
                    Integer.valueOf(1).equals(migCurrent), out);
        }

        void append(StringBuilder s, int index) {
            s.append("gpu\n");
            s.append("name ").append(name).append('\n');
            s.append("uuid ").append(uuid != null ? uuid : String.format("GPU-%08x-0000-4000-8000-%012x", index, index)).append('\n');
            s.append("memory ").append(Long.toUnsignedString(memoryBytes)).append('\n');
            s.append("cc ").append(ccMajor).append(' ').append(ccMinor).append('\n');
            s.append("pci ").append(busId != null ? busId : String.format("00000000:%02X:00.0", 0x07 + index * 8))
                    .append(' ').append(Integer.toHexString(pciDeviceId)).append(' ')
                    .append(Integer.toHexString(pciSubSystemId)).append('\n');
            if (migCurrent != null) {
                s.append("migmode ").append(migCurrent).append(' ').append(migPending).append('\n');
            }
            s.append("maxmig ").append(maxMig).append('\n');
            if (fabric != null) {
                s.append("fabric ").append(fabric).append('\n');
            }
            if (numa != null) {
                s.append("numa ").append(numa).append('\n');
            }
            profiles.forEach(p -> s.append(p.line()).append('\n'));
            rcs.forEach((f, c) -> s.append("rc.").append(f).append(' ').append(c).append('\n'));
            migs.forEach((slot, mig) -> s.append(mig.lines(index, slot)));
        }
    }

    /**
     * One MIG device as NVML describes it: name, UUID (null = derived), memory (nvmlDeviceGetMemoryInfo),
     * GPU/compute instance ids, attributes (nvmlDeviceGetAttributes_v2) and per-call return codes.
     */
    public record MigDevice(String name, String uuid, long memoryBytes, int gpuInstanceId, int computeInstanceId,
                            int multiprocessors, int copyEngines, int decoders, int encoders, int jpegs, int ofas,
                            int gpuInstanceSlices, int computeInstanceSlices, long memoryMiB, Map<String, Integer> rcs) {

        /** The same device with {@code function} answering {@code code}. */
        public MigDevice rc(String function, int code) {
            Map<String, Integer> m = new LinkedHashMap<>(rcs);
            m.put(function, code);
            return new MigDevice(name, uuid, memoryBytes, gpuInstanceId, computeInstanceId, multiprocessors, copyEngines,
                    decoders, encoders, jpegs, ofas, gpuInstanceSlices, computeInstanceSlices, memoryMiB, m);
        }

        String lines(int gpuIndex, int slot) {
            StringBuilder s = new StringBuilder();
            s.append("mig ").append(slot).append('\n');
            s.append("name ").append(name).append('\n');
            s.append("uuid ").append(uuid != null ? uuid
                    : String.format("MIG-%04x%04x-0000-4000-8000-%012x", gpuIndex, slot, slot)).append('\n');
            s.append("memory ").append(Long.toUnsignedString(memoryBytes)).append('\n');
            s.append("gi ").append(gpuInstanceId).append('\n');
            s.append("ci ").append(computeInstanceId).append('\n');
            s.append("attr ").append(multiprocessors).append(' ').append(copyEngines).append(' ').append(decoders)
                    .append(' ').append(encoders).append(' ').append(jpegs).append(' ').append(ofas).append(' ')
                    .append(gpuInstanceSlices).append(' ').append(computeInstanceSlices).append(' ').append(memoryMiB)
                    .append('\n');
            rcs.forEach((f, c) -> s.append("rc.").append(f).append(' ').append(c).append('\n'));
            return s.toString();
        }
    }
}
