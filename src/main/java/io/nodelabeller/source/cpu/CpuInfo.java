package io.nodelabeller.source.cpu;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The first processor block of {@code /proc/cpuinfo} ("key\t: value" lines, blocks separated by a blank line;
 * x86 blocks have vendor_id and flags, arm64 blocks Features and CPU implementer/part). The first block is what CPUID reports on the CPU NFD happens to run on; flags are the
 * same on every logical CPU of a server.
 *
 * @param fields every "key: value" of the block, keys trimmed (e.g. "vendor_id", "cpu family", "model")
 */
record CpuInfo(Map<String, String> fields) {

    CpuInfo {
        fields = Map.copyOf(fields);
    }

    /** The first block that has a "processor" line, or the first block when none has; empty when there is none. */
    static CpuInfo parse(String text) {
        try {
            return parse(new BufferedReader(new StringReader(text)));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not fail
        }
    }

    /**
     * Like {@link #parse(String)}, reading line by line and stopping at the end of the first processor block: a
     * server's cpuinfo repeats the block for every logical CPU (megabytes on a large host), and only one is kept.
     */
    static CpuInfo parse(BufferedReader in) throws IOException {
        Map<String, String> first = null;
        Map<String, String> block = new LinkedHashMap<>();
        boolean end = false;
        while (!end) {
            String line = in.readLine();
            if (line == null) {
                end = true;
                line = ""; // the last block ends with the file
            }
            if (line.isBlank()) {
                if (!block.isEmpty()) {
                    if (block.containsKey("processor")) {
                        return new CpuInfo(block);
                    }
                    if (first == null) {
                        first = block;
                    }
                    block = new LinkedHashMap<>();
                }
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue; // not a "key: value" line: ignored
            }
            String key = line.substring(0, colon).trim();
            if (!key.isEmpty()) {
                block.putIfAbsent(key, line.substring(colon + 1).trim());
            }
        }
        return new CpuInfo(first == null ? Map.of() : first);
    }

    String get(String key) {
        return fields.get(key);
    }

    /** The x86 "flags" line split on white space; empty when the block has none. */
    Set<String> flags() {
        return words("flags");
    }

    /** The arm64 "Features" line split on white space (the kernel's hwcap names); empty when there is none. */
    Set<String> features() {
        return words("Features");
    }

    private Set<String> words(String key) {
        String line = fields.get(key);
        Set<String> out = new TreeSet<>();
        if (line != null) {
            out.addAll(List.of(line.trim().split("\\s+")));
            out.remove("");
        }
        return out;
    }

    /** A field parsed as a non-negative decimal integer, or -1 when it is missing or not a number. */
    int number(String key) {
        String v = fields.get(key);
        if (v == null || !v.matches("\\d{1,9}")) {
            return -1;
        }
        return Integer.parseInt(v);
    }
}
