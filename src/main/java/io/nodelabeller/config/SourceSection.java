package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;

import java.util.function.Function;

/**
 * One source's settings under {@code sources:} ({@code sources.pci}, {@code sources.cpu}, ...): the key, the
 * defaults, and how to read and check the section. Each source's folder defines its own beside its discovery and
 * labeler; the catalog hands them all to the {@link ConfigLoader}, so that the config knows no source by name.
 *
 * @param reader reads a present section, recording every problem on the node with its key path
 */
public record SourceSection<T>(String name, T defaults, Function<YamlNode, T> reader) {

    /** The section of a source that takes no options: {@code <name>: {}} (or null) is all there is, as in NFD. */
    public static SourceSection<NoOptions> noOptions(String name) {
        return new SourceSection<>(name, NoOptions.NONE, n -> {
            if (!n.json().isObject() && !n.json().isNull()) {
                n.problem("expected an empty mapping ({}), sources." + name + " has no options");
            } else {
                n.entries().keySet().forEach(k -> n.child(k).problem("unknown key (sources." + name + " has no options)"));
            }
            return NoOptions.NONE;
        });
    }

    /** The settings of a source without options. */
    public enum NoOptions { NONE }
}
