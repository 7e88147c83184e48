package io.nodelabeller.label;

import java.util.Set;

/**
 * One label a labeler wants on the node, with what produced it: the labeler's name, the facts behind it
 * ("kernel.version.full = '6.8.0-45-generic' from /proc/sys/kernel/osrelease", shown by {@code explain}) and the
 * sources whose features it was computed from.
 *
 * @param source labeler name ({@code core.labelSources}, metrics, {@code explain})
 * @param inputs the sources this label's value depends on: while one of them fails, the label's last value is kept
 *               ("never remove on uncertainty"). {@link #ANY_SOURCE} when it may depend on any source (custom
 *               rules, labels found on the node at start-up).
 */
public record Label(String key, String value, String source, String evidence, Set<String> inputs) {

    /** The inputs of a label that may depend on any source. */
    public static final Set<String> ANY_SOURCE = Set.of();

    public Label {
        inputs = inputs == null ? ANY_SOURCE : Set.copyOf(inputs);
    }

    /** A label computed from the features of the source its labeler is named after, and nothing else. */
    public static Label of(String key, String value, String source, String evidence) {
        return new Label(key, value, source, evidence, source == null ? ANY_SOURCE : Set.of(source));
    }

    /** This label under another key (the labelling stage adds the default prefix). */
    public Label withKey(String newKey) {
        return new Label(newKey, value, source, evidence, inputs);
    }

    /**
     * What {@code explain} and docs/labels.md show as the label's source: its inputs ("pci"; "nvidia, pci"), or the
     * labeler's name when the label may depend on any source ("custom").
     */
    public String tiedTo() {
        return inputs.isEmpty() ? source : String.join(", ", new java.util.TreeSet<>(inputs));
    }

    /** The part of the key after the first '/' (the prefix), or the whole key when it has no prefix. */
    public String name() {
        int slash = key.indexOf('/');
        return slash < 0 ? key : key.substring(slash + 1);
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
