package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.ConfigException;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.Options;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Options every command takes (SPEC §3). */
final class CommonOptions {

    @Option(names = "--config", paramLabel = "FILE", description = "Config file (YAML). Without it the defaults apply.")
    Path config;

    Path hostRoot;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--host-root", paramLabel = "DIR", defaultValue = "/",
            description = "Directory under which host paths (/sys, /proc, /etc/os-release, ...) are read. Default: ${DEFAULT-VALUE}")
    void hostRoot(Path dir) {
        // a mistyped root would otherwise give a node with no labels at all, and exit 0
        if (!Files.isDirectory(dir)) {
            throw new ParameterException(command.commandLine(), "--host-root " + dir + ": "
                    + (Files.exists(dir) ? "not a directory" : "no such directory"));
        }
        hostRoot = dir;
    }

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

    Config loadConfig() throws ConfigException {
        return ConfigLoader.load(config, devicePluginConfig);
    }

    Options options() {
        return new Options(hostRoot, nvmlLibrary, devicePluginConfig, noTimestamp, sources);
    }
}
