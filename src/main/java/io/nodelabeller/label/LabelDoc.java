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

    /** A label with a fixed key: the example is {@code key=value}. */
    public static LabelDoc of(String key, String source, String from, String value, String description) {
        if (PLACEHOLDER.matcher(key).find()) {
            throw new IllegalArgumentException(key + " has a placeholder: use LabelDoc.pattern with an example key");
        }
        return new LabelDoc(key, source, from, key + "=" + value, description);
    }

    /** A label whose key has placeholders, with one concrete key and value as example. */
    public static LabelDoc pattern(String key, String exampleKey, String value, String source, String from,
                                   String description) {
        return new LabelDoc(key, source, from, exampleKey + "=" + value, description);
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
