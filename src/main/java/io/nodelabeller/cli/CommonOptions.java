package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Options;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Options every command takes. */
final class CommonOptions {

    @Option(names = "--config", paramLabel = "FILE", description = "Config file (YAML). Without it the defaults apply.")
    Path config;

    @Option(names = "--host-root", paramLabel = "DIR", defaultValue = "/",
            description = "Directory under which host paths (/sys, /proc, /etc/os-release, ...) are read. Default: ${DEFAULT-VALUE}")
    Path hostRoot;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--nvml-library", paramLabel = "PATH",
            description = "NVML library to load. Default: libnvidia-ml.so.1 from the system search path.")
    String nvmlLibrary;

    @Option(names = "--device-plugin-config", paramLabel = "FILE",
            description = "The NVIDIA device plugin's config file (sharing, MIG strategy).")
    Path devicePluginConfig;

    @Option(names = "--no-timestamp", description = "Leave out nvidia.com/gfd.timestamp.")
    boolean noTimestamp;

    @Option(names = "--sources", paramLabel = "LIST", split = ",",
            description = "Sources to run (overrides core.featureSources): all, names, -name to leave one out.")
    List<String> sources;

    /** The config, strictly: what NFD would accept with a warning is a problem too (check-config). */
    Config loadConfigStrictly() throws ConfigException {
        return Catalog.configLoader().strict().load(config, devicePluginConfig);
    }

    /** The config as the agent takes it: what NFD accepts with a warning is logged, one line each, and accepted. */
    Config loadConfig() throws ConfigException {
        Config loaded = Catalog.configLoader().load(config, devicePluginConfig);
        loaded.warnings().forEach(w -> org.slf4j.LoggerFactory.getLogger(CommonOptions.class).warn("{}", w));
        return loaded;
    }

    /**
     * The options, once the host root is known to be a directory (checked when the command runs, not when the
     * arguments are parsed, so that a manifest's arguments can be parsed anywhere). A mistyped root would otherwise
     * give a node with no labels at all, and exit 0: it is a usage error (exit 2, picocli's parameter handler).
     */
    Options options() {
        if (!Files.isDirectory(hostRoot)) {
            throw new ParameterException(command.commandLine(), "--host-root " + hostRoot + ": "
                    + (Files.exists(hostRoot) ? "not a directory" : "no such directory"));
        }
        return new Options(hostRoot, nvmlLibrary, devicePluginConfig, noTimestamp, sources,
                Environment.of(command).get(Environment.NODE_NAME));
    }
}
