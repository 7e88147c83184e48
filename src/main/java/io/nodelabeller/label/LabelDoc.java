package io.nodelabeller.label;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one kind of label is, written by the labeler that makes it ({@link Labeler#docs()}), so that the list of
 * labels ({@code node-labeller labels}, docs/labels.md) cannot drift from the code.
 *
 * @param key         the full key; {@code <...>} parts are placeholders ({@code <FLAG>}, {@code <fields>},
 *                    {@code <profile>}...) that stand for any run of label-key characters
 * @param source      what {@code explain} shows as the label's source: the source(s) a built-in label is computed
 *                    from ({@link Label#inputs()}), or the rule labeler's name
 * @param from        the host file(s), NVML call or config key the value comes from
 * @param example     one concrete {@code key=value} this label can take
 * @param description when the label is there and what its value means
 */
public record LabelDoc(String key, String source, String from, String example, String description) {

    private static final Pattern PLACEHOLDER = Pattern.compile("<[A-Za-z]+>");
    private static final String KEY_CHARS = "[-A-Za-z0-9_./]+";

    /**
     * The doc of the label(s) with key {@code key}, written in the record's order:
     * {@code LabelDoc.key(k).source(NAME).from("/proc/swaps").example("true").means("Swap is enabled.")}. A key
     * with placeholders takes a concrete example key too: {@code .example("feature.node.kubernetes.io/pci-0302_10de.present", "true")}.
     */
    public static Builder key(String key) {
        return new Builder(key, null, null);
    }

    /** The steps of {@link #key}: source, from, example, meaning. */
    public record Builder(String key, String source, String from) {

        public Builder source(String source) {
            return new Builder(key, source, from);
        }

        public Builder from(String from) {
            return new Builder(key, source, from);
        }

        /** The example of a fixed key: {@code key=value}. */
        public Example example(String value) {
            if (PLACEHOLDER.matcher(key).find()) {
                throw new IllegalArgumentException(key + " has a placeholder: give an example key with the value");
            }
            return new Example(this, key + "=" + value);
        }

        /** The example of a key with placeholders: one concrete key and its value. */
        public Example example(String exampleKey, String value) {
            return new Example(this, exampleKey + "=" + value);
        }
    }

    /** The last step of {@link #key}: what the label means. */
    public record Example(Builder doc, String example) {

        public LabelDoc means(String description) {
            if (doc.source() == null || doc.from() == null) {
                throw new IllegalArgumentException(doc.key() + ": source and from are required");
            }
            return new LabelDoc(doc.key(), doc.source(), doc.from(), example, description);
        }
    }

    public String exampleKey() {
        return example.substring(0, example.indexOf('='));
    }

    public String exampleValue() {
        return example.substring(example.indexOf('=') + 1);
    }

    /** Whether {@code labelKey} is one of the keys this pattern describes. */
    public boolean matches(String labelKey) {
        return pattern().matcher(labelKey).matches();
    }

    /** The keys this doc describes, as a pattern: each placeholder stands for a run of label-key characters. */
    public Pattern pattern() {
        StringBuilder re = new StringBuilder();
        Matcher m = PLACEHOLDER.matcher(key);
        int last = 0;
        while (m.find()) {
            re.append(Pattern.quote(key.substring(last, m.start()))).append(KEY_CHARS);
            last = m.end();
        }
        re.append(Pattern.quote(key.substring(last)));
        return Pattern.compile(re.toString());
    }
}
