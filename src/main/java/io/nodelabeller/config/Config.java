package io.nodelabeller.config;

/**
 * The whole configuration file: NFD worker's schema ({@code core}, {@code sources}) plus node-labeller's
 * own sections. Immutable; {@link #DEFAULT} is what runs without a file.
 */
public record Config(CoreConfig core, SourcesConfig sources, PublishConfig publish, DaemonConfig daemon) {

    public static final Config DEFAULT = new Config(CoreConfig.DEFAULT, SourcesConfig.DEFAULT, PublishConfig.DEFAULT,
            DaemonConfig.DEFAULT);

    /** Top-level keys, in the order they are documented. */
    static final String[] KEYS = {"core", "sources", "publish", "daemon"};

    /** This config with other {@code sources}. */
    public Config withSources(SourcesConfig newSources) {
        return new Config(core, newSources, publish, daemon);
    }

    static Config read(Node root) {
        root.object(KEYS);
        return new Config(
                root.child("core").isMissing() ? CoreConfig.DEFAULT : CoreConfig.read(root.child("core")),
                root.child("sources").isMissing() ? SourcesConfig.DEFAULT : SourcesConfig.read(root.child("sources")),
                root.child("publish").isMissing() ? PublishConfig.DEFAULT : PublishConfig.read(root.child("publish")),
                root.child("daemon").isMissing() ? DaemonConfig.DEFAULT : DaemonConfig.read(root.child("daemon")));
    }
}
