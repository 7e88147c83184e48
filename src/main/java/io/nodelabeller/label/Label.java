package io.nodelabeller.label;

/**
 * One label a labeler wants on the node, with what produced it: the labeler (or source) name and the
 * facts behind it ("kernel.version.full = '6.8.0-45-generic' from /proc/sys/kernel/osrelease"), shown
 * by {@code explain}.
 */
public record Label(String key, String value, String source, String evidence) {

    public static Label of(String key, String value, String source, String evidence) {
        return new Label(key, value, source, evidence);
    }

    /** The part of the key after the last '/', or the whole key when it has no prefix. */
    public String name() {
        int slash = key.indexOf('/');
        return slash < 0 ? key : key.substring(slash + 1);
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
