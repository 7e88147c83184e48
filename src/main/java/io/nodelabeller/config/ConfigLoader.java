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
    private final List<String> sourceNames;
    private final List<String> labelerNames;
    private final boolean strict;

    /**
     * @param sources      the {@code sources:} sections the loader reads
     * @param sourceNames  the names {@code core.featureSources} may list
     * @param labelerNames the names {@code core.labelSources} (and NFD's deprecated {@code core.sources}) may list
     */
    public ConfigLoader(List<SourceSection<?>> sources, List<String> sourceNames, List<String> labelerNames) {
        this(sources, sourceNames, labelerNames, false);
    }

    private ConfigLoader(List<SourceSection<?>> sources, List<String> sourceNames, List<String> labelerNames,
                         boolean strict) {
        this.sources = List.copyOf(sources);
        this.sourceNames = List.copyOf(sourceNames);
        this.labelerNames = List.copyOf(labelerNames);
        this.strict = strict;
    }

    /**
     * This loader, strict (check-config): what the agent accepts as NFD does, with a warning (an unknown source name,
     * an unknown deviceLabelFields entry, a custom.d file it cannot use), is a problem, listed in full.
     */
    public ConfigLoader strict() {
        return new ConfigLoader(sources, sourceNames, labelerNames, true);
    }

    /**
     * The config in {@code file}, or the defaults when {@code file} is null, plus the rule files of
     * {@code core.customRulesDir}. Problems of the file and of the rule files are reported together.
     */
    public Config load(Path file) throws ConfigException {
        List<String> problems = new ArrayList<>();
        Config config = Config.DEFAULT;
        if (file != null) {
            YamlNode root = YamlNode.root(file.toString(), Yaml.readTree(file.toString(), readText(file)), problems);
            config = knownNamesOnly(root, Config.read(root, sources));
        }
        String dir = config.core().customRulesDir();
        List<String> skipped = strict ? null : new ArrayList<>();
        List<String> warnings = new ArrayList<>(config.warnings());
        List<Rule> dirRules = dir.isEmpty() ? List.of() : RuleFiles.read(Path.of(dir), problems, skipped, warnings);
        rejectIfNeeded(problems, warnings);
        if (skipped != null) {
            warnings.addAll(skipped);
        }
        if (!warnings.equals(config.warnings())) {
            config = config.withCore(config.core(), warnings);
        }
        return dirRules.isEmpty() ? config : config.withSources(config.sources().withMoreRules(dirRules));
    }

    /**
     * The config in {@code file} (defaults when null) with the NVIDIA device plugin's config file
     * {@code devicePluginFile} (when not null) as its {@code devicePlugin} section. Giving both the file and a
     * {@code devicePlugin:} section is an error: two sources of truth for replicas would sooner or later disagree.
     */
    public Config load(Path file, Path devicePluginFile) throws ConfigException {
        if (devicePluginFile == null) {
            return load(file);
        }
        // both files' problems in one report
        List<String> problems = new ArrayList<>();
        Config config = null;
        DevicePluginConfig dp = null;
        try {
            config = load(file);
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
        List<String> dpWarnings = new ArrayList<>();
        try {
            dp = loadDevicePlugin(devicePluginFile, dpWarnings);
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
        if (config != null && config.devicePlugin().given()) {
            problems.add(file + ": devicePlugin: given both here and with --device-plugin-config "
                    + devicePluginFile + "; use one of them");
        }
        rejectIfNeeded(problems, dpWarnings);
        Config out = config.withDevicePlugin(dp);
        if (dpWarnings.isEmpty()) {
            return out;
        }
        List<String> warnings = new ArrayList<>(out.warnings());
        warnings.addAll(dpWarnings);
        return out.withCore(out.core(), warnings);
    }

    /**
     * The NVIDIA device plugin's config file {@code file} (YAML or JSON, as the plugin reads it), strictly: a key the
     * plugin would ignore is a problem too (check-config).
     */
    public static DevicePluginConfig loadDevicePlugin(Path file) throws ConfigException {
        return parseDevicePlugin(file.toString(), readText(file));
    }

    /** As above, as the plugin reads it: a key it would ignore is added to {@code warnings}, the rest applied. */
    public static DevicePluginConfig loadDevicePlugin(Path file, List<String> warnings) throws ConfigException {
        return parseDevicePlugin(file.toString(), readText(file), warnings);
    }

    /** Parses a device plugin config document strictly (a key the plugin would ignore is a problem); {@code name} names it. */
    public static DevicePluginConfig parseDevicePlugin(String name, String text) throws ConfigException {
        List<String> warnings = new ArrayList<>();
        DevicePluginConfig dp = parseDevicePlugin(name, text, warnings);
        if (!warnings.isEmpty()) {
            throw new ConfigException(warnings);
        }
        return dp;
    }

    /** Parses a device plugin config document as the plugin reads it; the keys it ignores go to {@code warnings}. */
    public static DevicePluginConfig parseDevicePlugin(String name, String text, List<String> warnings) throws ConfigException {
        JsonNode tree = Yaml.readTree(name, text);
        List<String> problems = new ArrayList<>();
        YamlNode root = YamlNode.root(name, tree, problems);
        DevicePluginConfig dp = DevicePluginConfig.read(root, name);
        if (!problems.isEmpty()) {
            problems.addAll(root.warnings());
            throw new ConfigException(problems);
        }
        warnings.addAll(root.warnings());
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
        YamlNode root = YamlNode.root(name, tree, problems);
        Config config = knownNamesOnly(root, Config.read(root, sources));
        rejectIfNeeded(problems, config.warnings());
        return config;
    }

    /**
     * Throws when there are problems, or (strict) warnings; a file that is rejected lists its warnings too, so that
     * one run shows everything.
     */
    private void rejectIfNeeded(List<String> problems, List<String> warnings) throws ConfigException {
        if (!problems.isEmpty() || (strict && !warnings.isEmpty())) {
            List<String> all = new ArrayList<>(problems);
            all.addAll(warnings);
            throw new ConfigException(all);
        }
    }

    /**
     * NFD skips a name it does not know in {@code core.featureSources} / {@code labelSources} with a log line
     * (pkg/nfd-worker/nfd-worker.go, "skipping unknown source specified in core.featureSources"): so does the
     * loader, with one warning per name at its key path. The config carries every warning of the file.
     */
    private Config knownNamesOnly(YamlNode root, Config config) {
        YamlNode core = root.child("core");
        List<String> features = known(core.child("featureSources"), config.core().featureSources(), sourceNames, "source");
        String labelKey = core.child("sources").isMissing() ? "labelSources" : "sources";
        List<String> labels = known(core.child(labelKey), config.core().labelSources(), labelerNames, "label source");
        return config.withCore(config.core().withSelections(features, labels), root.warnings());
    }

    private static List<String> known(YamlNode list, List<String> values, List<String> names, String what) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            String name = Selection.nameOf(values.get(i));
            if (values.get(i).isBlank() || name.equals("all") || names.contains(name)) {
                out.add(values.get(i));
            } else {
                list.element(i).warn("unknown " + what + " '" + name + "' skipped, as NFD skips it (known: all, "
                        + String.join(", ", names) + ")");
            }
        }
        return out;
    }
}
