package io.nodelabeller.config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The GPU Operator's per-node device plugin configs: a directory (the device plugin's ConfigMap, mounted) with one
 * file per named config, and the node label {@value #NODE_LABEL} naming the one a node uses. The choice follows
 * the device plugin's config-manager (cmd/config-manager/main.go): the labelled name; else the default name given;
 * else a config named {@value #NAMED_FALLBACK}; else the only config; else none (the plugin's defaults). Where
 * config-manager stops with an error — a label or default naming a config that is not there — node-labeller warns
 * and goes on down that list, so that its labels follow what the plugin falls back to rather than vanish.
 */
public final class DevicePluginConfigs {

    /** The node label that names a node's config (config-manager's default {@code --node-label}). */
    public static final String NODE_LABEL = "nvidia.com/device-plugin.config";
    /** config-manager's "named" fallback. */
    public static final String NAMED_FALLBACK = "default";

    /**
     * The config a node uses: {@code name} "" and {@code file} null for none. {@code warnings}: why the labelled
     * or default name was not used.
     */
    public record Choice(String name, Path file, List<String> warnings) {
        public Choice {
            warnings = List.copyOf(warnings);
        }
    }

    private DevicePluginConfigs() {
    }

    /** The config names in {@code dir}: regular files (links followed), not the ConfigMap's own {@code ..} entries. */
    public static List<String> names(Path dir) throws IOException {
        TreeSet<String> names = new TreeSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                String n = e.getFileName().toString();
                if (!n.startsWith("..") && Files.isRegularFile(e)) {
                    names.add(n);
                }
            }
        }
        return List.copyOf(names);
    }

    /**
     * The config for a node whose label {@value #NODE_LABEL} is {@code labelValue} (null: unknown or not set),
     * with {@code defaultName} (null or "": none given).
     */
    public static Choice choose(Path dir, String labelValue, String defaultName) {
        List<String> warnings = new ArrayList<>();
        List<String> names;
        try {
            names = names(dir);
        } catch (IOException e) {
            warnings.add("cannot list the device plugin configs in " + dir + " (" + e.getMessage()
                    + "): using none (the device plugin's defaults)");
            return new Choice("", null, warnings);
        }
        if (labelValue != null && !labelValue.isEmpty()) {
            if (names.contains(labelValue)) {
                return new Choice(labelValue, dir.resolve(labelValue), warnings);
            }
            warnings.add("node label " + NODE_LABEL + "=" + labelValue + " names no config in " + dir + " (it has "
                    + names + "); using the default");
        }
        if (defaultName != null && !defaultName.isEmpty()) {
            if (names.contains(defaultName)) {
                return new Choice(defaultName, dir.resolve(defaultName), warnings);
            }
            warnings.add("the default device plugin config '" + defaultName + "' is not in " + dir + " (it has "
                    + names + ")");
        }
        if (names.contains(NAMED_FALLBACK)) {
            return new Choice(NAMED_FALLBACK, dir.resolve(NAMED_FALLBACK), warnings);
        }
        if (names.size() == 1) {
            return new Choice(names.get(0), dir.resolve(names.get(0)), warnings);
        }
        return new Choice("", null, warnings);
    }
}
