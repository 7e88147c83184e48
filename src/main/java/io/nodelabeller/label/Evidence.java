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
     * {@code paths} joined compactly, each followed by {@code suffix} ("" for none): what they share at the start and
     * at the end is written once, as {@code /sys/block/{sda, sdb}} or {@code /sys/class/net/{ib0, ib1}/device}; paths
     * that share no directory are listed as they are.
     */
    public static String join(List<String> paths, String suffix) {
        if (paths.isEmpty()) {
            return "";
        }
        if (paths.size() == 1) {
            return paths.get(0) + suffix;
        }
        List<String[]> parts = paths.stream().map(p -> p.split("/", -1)).toList();
        int shortest = parts.stream().mapToInt(a -> a.length).min().orElse(0);
        int lead = 0;
        while (lead < shortest - 1 && same(parts, lead)) {
            lead++;
        }
        int trail = 0;
        while (trail < shortest - lead - 1 && sameFromEnd(parts, trail)) {
            trail++;
        }
        if (lead < 2 || parts.get(0)[0].length() > 0) {
            // no directory in common (or not absolute paths): as they are
            return String.join(", ", paths.stream().map(p -> p + suffix).toList());
        }
        String[] first = parts.get(0);
        String head = String.join("/", java.util.Arrays.copyOfRange(first, 0, lead));
        String tail = String.join("/", java.util.Arrays.copyOfRange(first, first.length - trail, first.length));
        int from = lead;
        int back = trail;
        List<String> middles = parts.stream()
                .map(a -> String.join("/", java.util.Arrays.copyOfRange(a, from, a.length - back))).toList();
        return head + "/{" + String.join(", ", middles) + "}" + (tail.isEmpty() ? "" : "/" + tail) + suffix;
    }

    /** Whether every path has the same segment at {@code index}. */
    private static boolean same(List<String[]> parts, int index) {
        String s = parts.get(0)[index];
        return parts.stream().allMatch(a -> a[index].equals(s));
    }

    /** Whether every path has the same segment {@code back} places before its end. */
    private static boolean sameFromEnd(List<String[]> parts, int back) {
        String s = parts.get(0)[parts.get(0).length - 1 - back];
        return parts.stream().allMatch(a -> a[a.length - 1 - back].equals(s));
    }
}
