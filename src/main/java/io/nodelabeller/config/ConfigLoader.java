package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.yaml.Yaml;
import com.fasterxml.jackson.databind.JsonNode;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and validates a config file. Every problem is collected; any problem makes the whole file rejected. A loader
 * knows the {@code sources:} sections of the sources it is given (the catalog's, in the agent); any other key under
 * {@code sources:} is an error.
 */
public final class ConfigLoader {

    private final List<SourceSection<?>> sources;

    public ConfigLoader(List<SourceSection<?>> sources) {
        this.sources = List.copyOf(sources);
    }

    /**
     * The config in {@code file}, or the defaults when {@code file} is null, plus the rule files of
     * {@code core.customRulesDir}. Problems of the file and of the rule files are reported together.
     */
    public Config load(Path file) throws ConfigException {
        List<String> problems = new ArrayList<>();
        Config config = file == null ? Config.DEFAULT
                : Config.read(YamlNode.root(file.toString(), Yaml.readTree(file.toString(), readText(file)), problems), sources);
        String dir = config.core().customRulesDir();
        List<Rule> dirRules = dir.isEmpty() ? List.of() : RuleFiles.read(Path.of(dir), problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return dirRules.isEmpty() ? config : config.withSources(config.sources().withMoreRules(dirRules));
    }

    /**
     * The config in {@code file} (defaults when null) with the NVIDIA device plugin's config file
     * {@code devicePluginFile} (when not null) as its {@code devicePlugin} section. Giving both the file and a
     * {@code devicePlugin:} section is an error: two sources of truth for replicas would sooner or later disagree.
     */
    public Config load(Path file, Path devicePluginFile) throws ConfigException {
        Config config = load(file);
        if (devicePluginFile == null) {
            return config;
        }
        if (config.devicePlugin().given()) {
            throw new ConfigException(file + ": devicePlugin: given both here and with --device-plugin-config "
                    + devicePluginFile + "; use one of them");
        }
        return config.withDevicePlugin(loadDevicePlugin(devicePluginFile));
    }

    /** The NVIDIA device plugin's config file {@code file} (YAML or JSON, as the plugin reads it). */
    public static DevicePluginConfig loadDevicePlugin(Path file) throws ConfigException {
        return parseDevicePlugin(file.toString(), readText(file));
    }

    /** Parses a device plugin config document; {@code name} is used in messages. */
    public static DevicePluginConfig parseDevicePlugin(String name, String text) throws ConfigException {
        JsonNode tree = Yaml.readTree(name, text);
        List<String> problems = new ArrayList<>();
        DevicePluginConfig dp = DevicePluginConfig.read(YamlNode.root(name, tree, problems), name);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return dp;
    }

    private static String readText(Path file) throws ConfigException {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": file not found");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage());
        }
    }

    /** Parses YAML (or JSON) {@code text}; {@code name} is used in messages. Reads no rule directory. */
    public Config parse(String name, String text) throws ConfigException {
        JsonNode tree = Yaml.readTree(name, text);
        List<String> problems = new ArrayList<>();
        Config config = Config.read(YamlNode.root(name, tree, problems), sources);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }
}
