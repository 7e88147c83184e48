package io.nodelabeller.label.nfd;

import java.util.List;

/** Short evidence for many host paths: siblings are written once as {@code /sys/block/{sda, sdb}}. */
final class Where {

    private Where() {
    }

    /** {@code paths} joined compactly, each followed by {@code suffix} ("" for none). */
    static String join(List<String> paths, String suffix) {
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
