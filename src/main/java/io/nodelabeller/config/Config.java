package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;


/**
 * The whole configuration file: NFD worker's schema ({@code core}, {@code sources}) plus node-labeller's
 * own sections. Immutable; {@link #DEFAULT} is what runs without a file.
 *
 * @param warnings what the loader accepted as NFD does, leniently, each a line naming file and key path (an unknown
 *                 name in {@code core.featureSources}, skipped): the agent logs them, {@code check-config} fails on them
 */
public record Config(CoreConfig core, SourcesConfig sources, PublishConfig publish, DaemonConfig daemon,
                     DevicePluginConfig devicePlugin, java.util.List<String> warnings) {

    public static final Config DEFAULT = new Config(CoreConfig.DEFAULT, SourcesConfig.DEFAULT, PublishConfig.DEFAULT,
            DaemonConfig.DEFAULT, DevicePluginConfig.DEFAULT, java.util.List.of());

    public Config {
        warnings = java.util.List.copyOf(warnings);
    }

    /** Top-level keys, in the order they are documented. */
    static final String[] KEYS = {"core", "sources", "publish", "daemon", "devicePlugin"};

    /** This config with {@code devicePlugin} replaced (the file given with {@code --device-plugin-config}). */
    public Config withDevicePlugin(DevicePluginConfig dp) {
        return new Config(core, sources, publish, daemon, dp, warnings);
    }

    /** This config with other {@code sources}. */
    public Config withSources(SourcesConfig newSources) {
        return new Config(core, newSources, publish, daemon, devicePlugin, warnings);
    }

    /** This config with other {@code core} settings and these warnings. */
    Config withCore(CoreConfig newCore, java.util.List<String> newWarnings) {
        return new Config(newCore, sources, publish, daemon, devicePlugin, newWarnings);
    }

    static Config read(YamlNode root, java.util.List<SourceSection<?>> sources) {
        root.object(KEYS);
        return new Config(
                root.child("core").isMissing() ? CoreConfig.DEFAULT : CoreConfig.read(root.child("core")),
                root.child("sources").isMissing() ? SourcesConfig.DEFAULT : SourcesConfig.read(root.child("sources"), sources),
                root.child("publish").isMissing() ? PublishConfig.DEFAULT : PublishConfig.read(root.child("publish")),
                root.child("daemon").isMissing() ? DaemonConfig.DEFAULT : DaemonConfig.read(root.child("daemon")),
                root.child("devicePlugin").isMissing() ? DevicePluginConfig.DEFAULT
                        : DevicePluginConfig.read(root.child("devicePlugin"), root.file() + " (devicePlugin)"),
                java.util.List.of());
    }
}
