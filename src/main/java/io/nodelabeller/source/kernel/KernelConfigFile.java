package io.nodelabeller.source.kernel;

import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.HostText;
import io.nodelabeller.source.Source.Warnings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Finds and parses the running kernel's build configuration the way NFD does. One instance per source: it keeps
 * the last config it parsed and parses again only when the file's size or modification time changed (a
 * distribution's config has ~11,000 lines; re-parsing it every cycle cost 10 ms).
 */
final class KernelConfigFile {

    private static final Pattern OPTION = Pattern.compile("^CONFIG_(\\w+)=(.+)");

    /** The config that was read: its host path and every option (name without CONFIG_ → value, quotes trimmed). */
    record Found(String hostPath, Map<String, String> options) {
    }

    /** The last config parsed and the stamp of its file then. */
    private Found last;
    private HostFs.Stamp lastStamp;

    /**
     * NFD's search order for kernel release {@code ver} (the raw osrelease): the configured file first, then
     * the places distributions keep it, {@code /boot/config-<ver>} last. Without a usable release
     * ({@code ver} null) only the two version-less places, as NFD when it cannot get the version.
     */
    static List<String> candidates(String kconfigFile, String ver) {
        List<String> out = new ArrayList<>();
        if (kconfigFile != null && !kconfigFile.isEmpty()) {
            out.add(kconfigFile);
        }
        out.add("/proc/config.gz");
        if (ver == null) {
            out.add("/usr/src/linux/.config");
            return out;
        }
        out.add("/usr/src/linux-" + ver + "/.config");
        out.add("/usr/src/linux-rt-" + ver + "/.config");
        out.add("/usr/src/linux/.config");
        out.add("/usr/lib/modules/" + ver + "/config");
        out.add("/usr/lib/ostree-boot/config-" + ver);
        out.add("/usr/lib/kernel/config-" + ver);
        out.add("/usr/src/linux-headers-" + ver + "/.config");
        out.add("/lib/modules/" + ver + "/build/.config");
        out.add("/usr/src/linux-rt-headers-" + ver + "/.config");
        out.add("/boot/config-" + ver);
        return out;
    }

    /**
     * The first readable candidate, parsed; null when none is. A candidate that exists but cannot be read
     * (a {@code .gz} that is not gzip, a directory, a file too large) is reported and the search goes on.
     */
    synchronized Found find(HostFs host, String kconfigFile, String ver, Warnings warnings) {
        if (kconfigFile != null && !kconfigFile.isEmpty() && !host.exists(kconfigFile)) {
            warnings.warn("kernel.config: sources.kernel.kconfigFile " + kconfigFile + " is not under the host root "
                    + host.root() + ", searching the usual places");
        }
        for (String candidate : candidates(kconfigFile, ver)) {
            Optional<HostFs.Stamp> stamp = host.stamp(candidate);
            if (stamp.isEmpty()) {
                continue;
            }
            if (last != null && last.hostPath().equals(candidate) && stamp.get().equals(lastStamp)) {
                return last;
            }
            try {
                // kept sorted: the features builder copies a sorted map in one pass instead of inserting ~11,000 keys
                last = new Found(candidate, Collections.unmodifiableSortedMap(new TreeMap<>(parse(read(host, candidate)))));
                lastStamp = stamp.get();
                return last;
            } catch (IOException | RuntimeException e) {
                warnings.warn("kernel.config: cannot read " + candidate + " (" + HostFs.reason(e) + "), trying the next place");
            }
        }
        return null;
    }

    private static String read(HostFs host, String hostPath) throws IOException {
        if (!hostPath.endsWith(".gz")) {
            return host.read(hostPath);
        }
        // gzip by extension, as NFD; the path is still the host's, resolved by HostFs, and bounded as its reads.
        try (InputStream in = new GZIPInputStream(host.open(hostPath))) {
            byte[] data = in.readNBytes(HostFs.MAX_FILE_BYTES + 1);
            if (data.length > HostFs.MAX_FILE_BYTES) {
                throw new IOException("uncompressed config larger than " + HostFs.MAX_FILE_BYTES + " bytes");
            }
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /** Every {@code CONFIG_<NAME>=<value>} line; "# CONFIG_X is not set" lines do not match. */
    static Map<String, String> parse(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            Matcher m = OPTION.matcher(line);
            if (m.find()) {
                out.put(m.group(1), HostText.trim(m.group(2), "\""));
            }
        }
        return out;
    }
}
