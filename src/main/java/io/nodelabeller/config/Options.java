package io.nodelabeller.config;

import java.nio.file.Path;
import java.util.List;

/**
 * Settings that come from the command line rather than the config file.
 *
 * @param hostRoot           the directory under which every host path is read ("/" by default)
 * @param nvmlLibrary        the NVML library to load, or null for {@code libnvidia-ml.so.1} from the search path
 * @param devicePluginConfig the NVIDIA device plugin's config file, or null
 * @param noTimestamp        leave out {@code nvidia.com/gfd.timestamp}
 * @param sources            overrides {@code core.featureSources} when not null
 * @param nodeName           the node the agent runs on, "" when unknown (NFD's {@code system.name.nodename})
 * @param role               which of its install's labels this agent writes
 */
public record Options(Path hostRoot, String nvmlLibrary, Path devicePluginConfig, boolean noTimestamp,
                      List<String> sources, String nodeName, Role role) {

    public Options {
        nodeName = nodeName == null ? "" : nodeName;
        role = role == null ? Role.ALL : role;
    }

    public Options(Path hostRoot, String nvmlLibrary, Path devicePluginConfig, boolean noTimestamp, List<String> sources,
                   String nodeName) {
        this(hostRoot, nvmlLibrary, devicePluginConfig, noTimestamp, sources, nodeName, Role.ALL);
    }

    public Options(Path hostRoot, String nvmlLibrary, Path devicePluginConfig, boolean noTimestamp, List<String> sources) {
        this(hostRoot, nvmlLibrary, devicePluginConfig, noTimestamp, sources, "");
    }

    public static Options defaults() {
        return new Options(Path.of("/"), null, null, false, null);
    }

    public Options withHostRoot(Path root) {
        return new Options(root, nvmlLibrary, devicePluginConfig, noTimestamp, sources, nodeName, role);
    }
}
