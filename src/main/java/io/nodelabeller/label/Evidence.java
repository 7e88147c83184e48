package io.nodelabeller.label;

import io.nodelabeller.feature.Features;

/** Builds the human-readable "facts behind a label" strings shown by {@code explain}. */
public final class Evidence {

    private Evidence() {
    }

    /** "kernel.version.full = '6.8.0' from /proc/sys/kernel/osrelease". */
    public static String attribute(Features f, String key, String name) {
        return key + "." + name + " = '" + f.attribute(key, name) + "'" + from(f, key);
    }

    /** " from <origin>" or "" when the feature has no recorded origin. */
    public static String from(Features f, String key) {
        String origin = f.origin(key);
        return origin == null ? "" : " from " + origin;
    }
}
