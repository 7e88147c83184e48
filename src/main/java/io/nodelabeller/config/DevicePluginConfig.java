package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;
import java.time.Duration;
import java.util.List;

/**
 * The NVIDIA device plugin's config file (version v1), the same file the plugin and GFD read, so that one
 * ConfigMap serves all three. Every key of the plugin's schema is accepted and type-checked; the ones that
 * matter for labels are kept. As in the plugin, {@code rename} and {@code devices} of shared resources are
 * not supported yet: what is kept is what the plugin uses (renamed to {@code <name>.shared} exactly when
 * {@code renameByDefault} is true, all devices).
 *
 * @param origin          where it was read ("dp.yaml", "config.yaml (devicePlugin)"), or null for the default
 * @param migStrategy     {@code none}, {@code single} or {@code mixed}
 * @param failOnInitError null when unset
 * @param gfd             {@code flags.gfd}
 * @param sharing         {@code sharing} (never null)
 * @param migStrategyFrom where {@code migStrategy} came from when a flag or the environment set it over the file
 *                        ("MIG_STRATEGY", "--mig-strategy"); null when it is the file's (or the default)
 */
public record DevicePluginConfig(String origin, String migStrategy, Boolean failOnInitError, Gfd gfd,
                                 Sharing sharing, String migStrategyFrom) {

    /** No device plugin config: MIG strategy none, no sharing. */
    public static final DevicePluginConfig DEFAULT = new DevicePluginConfig(null, "none", null, Gfd.DEFAULT, Sharing.NONE, null);

    /** The MIG strategies GFD and the device plugin know. */
    public static final List<String> MIG_STRATEGIES = List.of("none", "single", "mixed");

    public DevicePluginConfig(String origin, String migStrategy, Boolean failOnInitError, Gfd gfd, Sharing sharing) {
        this(origin, migStrategy, failOnInitError, gfd, sharing, null);
    }

    /**
     * This config with what GFD's and the device plugin's command line or environment set over the file, as they take
     * it (k8s-device-plugin {@code api/config/v1/flags.go}: a flag overrides the file's value only when it is set,
     * on the command line or by its environment variable). {@code migStrategy} / {@code failOnInitError} null: not
     * set; {@code migStrategyFrom} says where the MIG strategy came from.
     */
    public DevicePluginConfig withFlags(String migStrategy, Boolean failOnInitError, String migStrategyFrom) {
        return new DevicePluginConfig(origin, migStrategy != null ? migStrategy : this.migStrategy,
                failOnInitError != null ? failOnInitError : this.failOnInitError, gfd, sharing,
                migStrategy != null ? migStrategyFrom : this.migStrategyFrom);
    }

    /** Where the MIG strategy was set, for explain: "flags.migStrategy in dp.yaml", "MIG_STRATEGY". */
    public String migStrategyWhere() {
        if (migStrategyFrom != null) {
            return migStrategyFrom;
        }
        return origin == null ? "the default (no device plugin config)" : "flags.migStrategy in " + origin;
    }
    private static final List<String> DISCOVERY_STRATEGIES = List.of("auto", "nvml", "tegra", "vfio");

    /**
     * {@code flags.gfd}: only {@code noTimestamp} changes what node-labeller does; the others are accepted so
     * the shared file stays valid (node-labeller has its own {@code core.sleepInterval} and outputs).
     *
     * @param sleepInterval null when unset; a number is nanoseconds, "infinite" is the longest duration
     */
    public record Gfd(boolean oneshot, boolean noTimestamp, Duration sleepInterval, String outputFile,
                      String machineTypeFile) {
        public static final Gfd DEFAULT = new Gfd(false, false, null, null, null);
    }

    /**
     * Whether {@code run} should exit 1 when NVML cannot be initialised. GFD's default is true, but
     * node-labeller runs on every node, GPU or not, so unset means false here.
     */
    public boolean failOnInitErrorOrDefault() {
        return failOnInitError != null && failOnInitError;
    }

    /** Whether the config came from a file or a config section (rather than being the default). */
    public boolean given() {
        return origin != null;
    }

    /** Reads a whole device plugin config document ({@code origin} names it in explain output). */
    public static DevicePluginConfig read(YamlNode n, String origin) {
        if (n.isMissing()) {
            return new DevicePluginConfig(origin, DEFAULT.migStrategy, null, Gfd.DEFAULT, Sharing.NONE);
        }
        n.objectIgnoringUnknown("version", "flags", "resources", "sharing", "imex");
        String version = n.child("version").string("");
        if (!version.isEmpty() && !version.equals("v1")) {
            n.child("version").problem("unknown version '" + version + "' (expected v1)");
        }
        YamlNode flags = n.child("flags");
        flags.objectIgnoringUnknown("migStrategy", "failOnInitError", "mpsRoot", "nvidiaDriverRoot", "nvidiaDevRoot",
                "gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI", "deviceDiscoveryStrategy",
                "plugin", "gfd");
        String mig = oneOf(flags.child("migStrategy"), MIG_STRATEGIES, "none");
        YamlNode fail = flags.child("failOnInitError");
        Boolean failOnInit = fail.isMissing() ? null : fail.bool(false);
        for (String s : List.of("mpsRoot", "nvidiaDriverRoot", "nvidiaDevRoot")) {
            flags.child(s).string(null);
        }
        for (String b : List.of("gdrcopyEnabled", "gdsEnabled", "mofedEnabled", "useNodeFeatureAPI")) {
            flags.child(b).bool(false);
        }
        oneOf(flags.child("deviceDiscoveryStrategy"), DISCOVERY_STRATEGIES, "auto");
        readPlugin(flags.child("plugin"));
        Gfd gfd = readGfd(flags.child("gfd"));
        readResourcePatterns(n.child("resources"));
        readImex(n.child("imex"));
        Sharing sharing = Sharing.read(n.child("sharing")).effective();
        return new DevicePluginConfig(origin, mig, failOnInit, gfd, sharing);
    }

    private static String oneOf(YamlNode n, List<String> allowed, String dflt) {
        return n.parsed(dflt, "one of " + String.join(", ", allowed), t -> allowed.contains(t) ? t : null);
    }

    private static void readPlugin(YamlNode n) {
        n.objectIgnoringUnknown("passDeviceSpecs", "deviceListStrategy", "deviceIDStrategy", "cdiAnnotationPrefix", "nvidiaCTKPath",
                "containerDriverRoot", "sharedDevicesAllocationPolicy");
        n.child("passDeviceSpecs").bool(false);
        YamlNode list = n.child("deviceListStrategy");
        if (list.json().isArray()) {
            list.strings(List.of());
        } else {
            list.string(null);
        }
        for (String s : List.of("deviceIDStrategy", "cdiAnnotationPrefix", "nvidiaCTKPath", "containerDriverRoot",
                "sharedDevicesAllocationPolicy")) {
            n.child(s).string(null);
        }
    }

    private static Gfd readGfd(YamlNode n) {
        if (!n.objectIgnoringUnknown("oneshot", "noTimestamp", "sleepInterval", "outputFile", "machineTypeFile")) {
            return Gfd.DEFAULT;
        }
        return new Gfd(n.child("oneshot").bool(false), n.child("noTimestamp").bool(false),
                goDuration(n.child("sleepInterval")), n.child("outputFile").string(null),
                n.child("machineTypeFile").string(null));
    }

    /** GFD's duration: a JSON number is nanoseconds, a string is a Go duration or "infinite". */
    static Duration goDuration(YamlNode n) {
        if (n.isMissing()) {
            return null;
        }
        if (n.json().isNumber()) {
            if (!n.json().isIntegralNumber() || !n.json().canConvertToLong()) {
                n.problem("expected a whole number of nanoseconds or a duration such as 60s, got '" + n.json().asText() + "'");
                return null;
            }
            return Duration.ofNanos(n.json().longValue());
        }
        return n.parsed(null, "a duration such as 60s, or infinite", t ->
                t.equals("infinite") ? Duration.ofNanos(Long.MAX_VALUE) : YamlNode.parseDuration(t));
    }

    private static void readResourcePatterns(YamlNode n) {
        if (!n.objectIgnoringUnknown("gpus", "mig")) {
            return;
        }
        for (String kind : List.of("gpus", "mig")) {
            for (YamlNode e : n.child(kind).elements()) {
                e.objectIgnoringUnknown("pattern", "name");
                e.child("pattern").string(null);
                e.child("name").string(null);
            }
        }
    }

    private static void readImex(YamlNode n) {
        if (!n.objectIgnoringUnknown("channelIDs", "required")) {
            return;
        }
        n.child("required").bool(false);
        YamlNode ids = n.child("channelIDs");
        for (YamlNode e : ids.elements()) {
            int id = e.integer(0, 0, Integer.MAX_VALUE);
            if (id != 0) {
                e.problem("only channel ID 0 is supported, got " + id);
            }
        }
        if (ids.json().isArray() && ids.json().size() > 1) {
            ids.problem("at most one channel ID (0) is supported");
        }
    }
}
