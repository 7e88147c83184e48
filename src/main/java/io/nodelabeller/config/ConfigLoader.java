package io.nodelabeller.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads and validates a config file. Every problem is collected; any problem makes the whole file rejected. */
public final class ConfigLoader {

    /**
     * Duplicate keys are an error (the YAML spec says mapping keys are unique; SnakeYAML and Jackson would
     * otherwise keep the last one silently, so a pasted config could lose a setting without a word).
     */
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private ConfigLoader() {
    }

    /**
     * The config in {@code file}, or the defaults when {@code file} is null, plus the rule files of
     * {@code core.customRulesDir}. Problems of the file and of the rule files are reported together.
     */
    public static Config load(Path file) throws ConfigException {
        List<String> problems = new ArrayList<>();
        Config config = file == null ? Config.DEFAULT
                : Config.read(Node.root(file.toString(), readTree(file.toString(), readText(file)), problems));
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
    public static Config load(Path file, Path devicePluginFile) throws ConfigException {
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
        JsonNode tree = readTree(name, text);
        List<String> problems = new ArrayList<>();
        DevicePluginConfig dp = DevicePluginConfig.read(Node.root(name, tree, problems), name);
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
    public static Config parse(String name, String text) throws ConfigException {
        JsonNode tree = readTree(name, text);
        List<String> problems = new ArrayList<>();
        Config config = Config.read(Node.root(name, tree, problems));
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }

    /** Parses YAML into a tree; an empty document is an empty tree. Syntax errors name the line. */
    public static JsonNode readTree(String name, String text) throws ConfigException {
        try {
            JsonNode tree = YAML.readTree(text);
            return tree == null ? MissingNode.getInstance() : tree;
        } catch (JsonProcessingException e) {
            throw new ConfigException(name + ": not valid YAML" + yamlProblem(e));
        }
    }

    /**
     * " at line L, column C: what" in one line. SnakeYAML's own message spans several lines (the context, the
     * offending line and a caret), so its parts are taken from the exception instead.
     */
    static String yamlProblem(JsonProcessingException e) {
        if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException m && m.getProblemMark() != null) {
            String context = m.getContext() == null ? "" : " (" + m.getContext()
                    + (m.getContextMark() == null ? "" : " at line " + (m.getContextMark().getLine() + 1)
                    + ", column " + (m.getContextMark().getColumn() + 1)) + ")";
            return " at line " + (m.getProblemMark().getLine() + 1) + ", column " + (m.getProblemMark().getColumn() + 1)
                    + ": " + m.getProblem() + context;
        }
        String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                + ", column " + e.getLocation().getColumnNr();
        return where + ": " + Node.firstLine(e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage());
    }
}
