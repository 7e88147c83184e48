package io.nodelabeller.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** What the benchmarks read of a measured process under /proc/PID: its status fields and where its memory is. */
final class Proc {

    private Proc() {
    }

    /** /proc/PID/status as field → value ("VmRSS" → "81234 kB"). */
    static Map<String, String> status(long pid) throws Exception {
        Map<String, String> out = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                out.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return out;
    }

    /** A status or smaps size ("81234 kB") in KiB. */
    static long kib(String value) {
        return Long.parseLong(value.replace("kB", "").trim());
    }

    /**
     * Where the resident memory is, from /proc/PID/smaps: Rss and {@code second} ("Private_Dirty", "Anonymous")
     * summed per mapped file (anonymous mappings together: the heap, code cache, metaspace, stacks; a file
     * mapping's Anonymous pages are its written copies, the class-data archive's among them), the
     * {@code limit} largest first, as one line.
     */
    static String smapsByMapping(long pid, String second, int limit) throws Exception {
        Map<String, long[]> byName = new HashMap<>();
        String name = null;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 0 && f[0].matches("[0-9a-f]+-[0-9a-f]+")) {
                name = f.length >= 6 ? Path.of(f[5]).getFileName() + "" : "[anon]";
            } else if (name != null && (f[0].equals("Rss:") || f[0].equals(second + ":"))) {
                byName.computeIfAbsent(name, k -> new long[2])[f[0].equals("Rss:") ? 0 : 1] += Long.parseLong(f[1]);
            }
        }
        StringBuilder out = new StringBuilder("  smaps at the end (Rss / " + second + " KiB):");
        byName.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(limit)
                .forEach(e -> out.append(String.format(" %s %d/%d;", e.getKey(), e.getValue()[0], e.getValue()[1])));
        return out.toString();
    }
}
