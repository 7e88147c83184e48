package io.nodelabeller.label;

import java.util.Set;

/**
 * One label a labeler wants on the node, with what produced it: the labeler, the facts behind it
 * ("kernel.version.full = '6.8.0-45-generic' from /proc/sys/kernel/osrelease", shown by {@code explain}) and the
 * sources whose features it was computed from.
 *
 * @param source the labeler that made it, by the name {@code core.labelSources}, metrics and {@code explain} use:
 *               a built-in labeler is named after its source, so this is the source's {@code NAME}
 *               ({@code KernelSource.NAME}, never a class name); {@code custom} or {@code nodefeaturerule} for a
 *               rule's output. What the label depends on is {@code inputs}, not this
 * @param inputs the sources this label's value was computed from: while one of them fails, the label's last value is
 *               kept ("never remove on uncertainty"). Exact: a built-in label's own source ({@code gpu.mode}: nvidia
 *               and pci), a rule's output the sources of the features its rule reads; empty for a label computed
 *               from nothing that can fail (a rule without match terms). {@link #ANY_SOURCE} only when the origin is
 *               unknown (a label found on the node at start-up).
 */
public record Label(String key, String value, String source, String evidence, Set<String> inputs) {

    /** The input name that stands for "any source" in {@link #ANY_SOURCE}; never a source's name. */
    public static final String ANY = "*";

    /** The inputs of a label whose origin is unknown: it may depend on any source. */
    public static final Set<String> ANY_SOURCE = Set.of(ANY);

    public Label {
        inputs = inputs == null || inputs.contains(ANY) ? ANY_SOURCE : Set.copyOf(inputs);
    }

    /** A label computed from the features of the source its labeler is named after, and nothing else. */
    public static Label of(String key, String value, String source, String evidence) {
        return new Label(key, value, source, evidence, source == null ? ANY_SOURCE : Set.of(source));
    }

    /** This label under another key (the labelling stage adds the default prefix). */
    public Label withKey(String newKey) {
        return new Label(newKey, value, source, evidence, inputs);
    }

    /** Whether this label's origin is unknown, so that it may depend on any source. */
    public boolean originUnknown() {
        return inputs.contains(ANY);
    }

    /** Whether one of {@code names} is among this label's inputs; for a label of unknown origin, whether there is one. */
    public boolean dependsOnAny(Set<String> names) {
        if (originUnknown()) {
            return !names.isEmpty();
        }
        for (String input : inputs) {
            if (names.contains(input)) {
                return true;
            }
        }
        return false;
    }

    /** The inputs sorted and comma-separated ("nvidia, pci"), for {@code explain} and log lines. */
    public String inputList() {
        return String.join(", ", new java.util.TreeSet<>(inputs));
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
