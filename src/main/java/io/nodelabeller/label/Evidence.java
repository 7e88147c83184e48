package io.nodelabeller.label;

import io.nodelabeller.feature.Features;

import java.util.List;

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

    /** Where instance {@code i} of feature {@code key} was read: its recorded origin, else {@code key[i]}. */
    public static String where(Features f, String key, int i) {
        String origin = f.instanceOrigin(key, i);
        return origin == null ? key + "[" + i + "]" : origin;
    }

    /**
     * One attribute of one instance and the file it came from: "network.device sriov_numvfs = '4' from
     * /sys/class/net/eth0/device/sriov_numvfs", {@code file} being below the instance's origin ("" for the origin
     * itself); without a recorded origin, "network.device[0] sriov_numvfs = '4'".
     */
    public static String instance(Features f, String key, int i, String attr, String file) {
        String value = "'" + f.instances(key).get(i).get(attr) + "'";
        String origin = f.instanceOrigin(key, i);
        if (origin == null) {
            return key + "[" + i + "] " + attr + " = " + value;
        }
        return key + " " + attr + " = " + value + " from " + origin + (file.isEmpty() ? "" : "/" + file);
    }

    /**
     * {@code paths} joined compactly, each followed by {@code suffix} ("" for none): siblings are written once, as
     * {@code /sys/block/{sda, sdb}}.
     */
    public static String join(List<String> paths, String suffix) {
        if (paths.isEmpty()) {
            return "";
        }
        String parent = parent(paths.get(0));
        if (paths.size() == 1 || parent == null || !paths.stream().allMatch(p -> parent.equals(parent(p)))) {
            return String.join(", ", paths.stream().map(p -> p + suffix).toList());
        }
        return parent + "/{" + String.join(", ", paths.stream().map(p -> p.substring(parent.length() + 1)).toList()) + "}" + suffix;
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? null : path.substring(0, slash);
    }
}
