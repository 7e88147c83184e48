package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.DevicePluginConfigs;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Options;
import io.nodelabeller.config.Role;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

    @Option(names = "--device-plugin-config-dir", paramLabel = "DIR",
            description = "The device plugin's named configs (its ConfigMap as a directory); the node label "
                    + "nvidia.com/device-plugin.config picks one (GPU Operator).")
    Path devicePluginConfigDir;

    @Option(names = "--device-plugin-default-config", paramLabel = "NAME",
            description = "With --device-plugin-config-dir: the config of nodes without the label.")
    String devicePluginDefaultConfig;

    @Option(names = "--no-timestamp", description = "Leave out nvidia.com/gfd.timestamp.")
    boolean noTimestamp;

    @Option(names = "--mig-strategy", paramLabel = "none|single|mixed",
            description = "The MIG strategy, over the device plugin config's flags.migStrategy, as GFD and the device"
                    + " plugin take it. Default: the GFD_MIG_STRATEGY or MIG_STRATEGY environment variable (the GPU"
                    + " Operator sets MIG_STRATEGY from its ClusterPolicy), else the file's.")
    String migStrategy;

    @Option(names = "--fail-on-init-error", paramLabel = "true|false", arity = "0..1", fallbackValue = "true",
            description = "Over the device plugin config's flags.failOnInitError, as GFD takes it. Default: the"
                    + " GFD_FAIL_ON_INIT_ERROR or FAIL_ON_INIT_ERROR environment variable, else the file's.")
    String failOnInitError;

    @Option(names = "--role", paramLabel = "all|host|gpu",
            description = "Which labels this agent writes: all (default); host: all but the GPU agent's, without NVML"
                    + " (nvidia.com/gpu.present from PCI); gpu: only GPU Feature Discovery's labels from NVML, beside a"
                    + " host agent. Default: the NODE_LABELLER_ROLE environment variable, else all.")
    String role;

    @Option(names = "--sources", paramLabel = "LIST", split = ",",
            description = "Sources to run (overrides core.featureSources): all, names, -name to leave one out.")
    List<String> sources;

    /**
     * The config, strictly: what NFD would accept with a warning is a problem too (check-config). With
     * {@code --device-plugin-config-dir}, every named config there is checked, all problems reported together.
     */
    Config loadConfigStrictly() throws ConfigException {
        DevicePluginConfigs.Choice choice = devicePluginChoice(null);
        if (choice == null) {
            return Catalog.configLoader().strict().load(config, devicePluginConfig);
        }
        List<String> problems = new java.util.ArrayList<>(choice.warnings());
        Config loaded = null;
        try {
            loaded = Catalog.configLoader().strict().load(config, choice.file());
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
        try {
            for (String name : DevicePluginConfigs.names(devicePluginConfigDir)) {
                if (!name.equals(choice.name())) {
                    try {
                        io.nodelabeller.config.ConfigLoader.loadDevicePlugin(devicePluginConfigDir.resolve(name));
                    } catch (ConfigException e) {
                        problems.addAll(e.problems());
                    }
                }
            }
        } catch (java.io.IOException e) {
            problems.add(devicePluginConfigDir + ": cannot list the device plugin configs: " + e.getMessage());
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return loaded;
    }

    /** The config as the agent takes it: what NFD accepts with a warning is logged, one line each, and accepted. */
    Config loadConfig() throws ConfigException {
        DevicePluginConfigs.Choice choice = devicePluginChoice(null);
        if (choice != null) {
            choice.warnings().forEach(w -> org.slf4j.LoggerFactory.getLogger(CommonOptions.class).warn("{}", w));
        }
        return loadConfig(choice);
    }

    /**
     * The config with the device plugin config {@code choice} (from {@link #devicePluginChoice}) and what
     * {@code --mig-strategy} / {@code --fail-on-init-error} (or their environment variables) set over it; warnings logged.
     */
    Config loadConfig(DevicePluginConfigs.Choice choice) throws ConfigException {
        Config loaded = Catalog.configLoader().load(config, devicePluginFile(choice));
        loaded.warnings().forEach(w -> org.slf4j.LoggerFactory.getLogger(CommonOptions.class).warn("{}", w));
        return withDevicePluginFlags(loaded);
    }

    /**
     * {@code loaded} with the MIG strategy and failOnInitError that the command line or the environment set, over the
     * file's: the precedence of GFD and the device plugin (a flag, else its environment variable, else the file, else
     * the default). A value they would refuse is a usage error naming where it came from.
     */
    Config withDevicePluginFlags(Config loaded) {
        if (!readsDevicePlugin()) {
            return loaded;
        }
        String mig = null;
        String migFrom = null;
        if (migStrategy != null && !migStrategy.isBlank()) {
            migFrom = setBy("--mig-strategy", Environment.MIG_STRATEGY);
            mig = migStrategy.trim();
            if (!io.nodelabeller.config.DevicePluginConfig.MIG_STRATEGIES.contains(mig)) {
                throw new ParameterException(command.commandLine(), migFrom + ": expected one of "
                        + String.join(", ", io.nodelabeller.config.DevicePluginConfig.MIG_STRATEGIES) + ", got '" + mig + "'");
            }
        }
        Boolean fail = null;
        if (failOnInitError != null && !failOnInitError.isBlank()) {
            fail = parseGoBool(failOnInitError.trim());
            if (fail == null) {
                throw new ParameterException(command.commandLine(), setBy("--fail-on-init-error", Environment.FAIL_ON_INIT_ERROR)
                        + ": expected true or false, got '" + failOnInitError.trim() + "'");
            }
        }
        if (mig == null && fail == null) {
            return loaded;
        }
        return loaded.withDevicePlugin(loaded.devicePlugin().withFlags(mig, fail, migFrom));
    }

    /** The option's name when it is on the command line, else the first of its environment variables that is set. */
    private String setBy(String option, List<String> env) {
        if (command.commandLine().getParseResult() != null && command.commandLine().getParseResult().hasMatchedOption(option)) {
            return option;
        }
        String name = Environment.of(command).firstName(env);
        return name == null ? option : name;
    }

    /** Go's strconv.ParseBool, which GFD's flags use: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
    static Boolean parseGoBool(String s) {
        return switch (s) {
            case "1", "t", "T", "TRUE", "true", "True" -> Boolean.TRUE;
            case "0", "f", "F", "FALSE", "false", "False" -> Boolean.FALSE;
            default -> null;
        };
    }

    /**
     * Which of {@code --device-plugin-config-dir}'s configs a node whose {@value DevicePluginConfigs#NODE_LABEL}
     * label is {@code nodeLabel} (null: not known) uses; null without that option.
     */
    DevicePluginConfigs.Choice devicePluginChoice(String nodeLabel) {
        if (devicePluginConfigDir == null || !readsDevicePlugin()) {
            return null;
        }
        if (devicePluginConfig != null) {
            throw new ParameterException(command.commandLine(),
                    "--device-plugin-config and --device-plugin-config-dir: give one of them");
        }
        return DevicePluginConfigs.choose(devicePluginConfigDir, nodeLabel, devicePluginDefaultConfig);
    }

    /** The files a (re)load read, for its log line: "config /etc/x/config.yaml, device plugin config /etc/x/dp.yaml". */
    String describeFiles(DevicePluginConfigs.Choice choice) {
        List<String> parts = new ArrayList<>();
        parts.add(config == null ? "no config file (defaults)" : "config " + config);
        Path dp = devicePluginFile(choice);
        if (dp != null) {
            parts.add("device plugin config " + (choice == null ? "" : "'" + choice.name() + "' ") + dp);
        }
        return String.join(", ", parts);
    }

    private Path devicePluginFile(DevicePluginConfigs.Choice choice) {
        return choice == null ? (readsDevicePlugin() ? devicePluginConfig : null) : choice.file();
    }

    /**
     * Whether this agent reads the device plugin's config at all: not the host agent ({@code --role host}), which uses
     * none of its settings (no NVML, no MIG, no sharing), so that it starts whatever state the GPU stack's
     * configuration is in — a missing, misnamed or newer file, or a ConfigMap the GPU agent's DaemonSet mounts.
     */
    boolean readsDevicePlugin() {
        return role() != Role.HOST;
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
                Environment.of(command).get(Environment.NODE_NAME), role());
    }

    /** {@code --role} (or {@code NODE_LABELLER_ROLE}); a value it does not know is a usage error naming where it came from. */
    Role role() {
        if (role == null || role.isBlank()) {
            return Role.ALL;
        }
        Role r = Role.parse(role);
        if (r == null) {
            throw new ParameterException(command.commandLine(), setBy("--role", List.of(Environment.ROLE))
                    + ": expected one of " + Role.VALUES + ", got '" + role.trim() + "'");
        }
        return r;
    }
}
