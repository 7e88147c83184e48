package io.nodelabeller.source.memory;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Memory as NFD's memory source sees it. Four independent features, each of which may be lost alone
 * (with a warning) while the others are still reported:
 * <ul>
 *   <li>{@code memory.numa}: {@code is_numa} (more than one entry in {@code /sys/bus/node/devices}),
 *       {@code node_count} (1 without the directory);</li>
 *   <li>{@code memory.swap}: {@code enabled} (more than one non-empty line in {@code /proc/swaps}: the header
 *       plus at least one swap area);</li>
 *   <li>{@code memory.nv}: one instance per {@code /sys/bus/nd/devices} entry with {@code name}, {@code devtype},
 *       {@code mode} (no nd bus = no instances);</li>
 *   <li>{@code memory.hugepages}: {@code enabled} and {@code hugepages-<size>} = {@code nr_hugepages} per page
 *       size, the size written as a Kubernetes quantity ({@code hugepages-2Mi}, {@code hugepages-1Gi}).</li>
 * </ul>
 * The sysfs directories are listed with {@link HostFs#listHardware}: one the kernel does not make (no NUMA, no
 * nd bus, no huge page support) is none of that hardware, without a warning; a kernel without NUMA has one node.
 * When none of NUMA, swap and huge pages can be read, the host's /sys and /proc are not visible at all and
 * the source fails (its previous labels are kept) rather than reporting a node without memory features.
 */
public final class MemorySource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "memory";

    static final String NODES = "/sys/bus/node/devices";
    static final String SWAPS = "/proc/swaps";
    static final String ND = "/sys/bus/nd/devices";
    static final String HUGEPAGES = "/sys/kernel/mm/hugepages";

    @Override
    public Features discover(HostFs host, Warnings warnings) throws IOException {
        Features.Builder b = Features.builder(NAME);
        boolean numa = numa(host, b, warnings);
        boolean swap = swap(host, b, warnings);
        nv(host, b, warnings);
        boolean hugepages = hugepages(host, b, warnings);
        if (!numa && !swap && !hugepages) {
            // Nothing of /sys or /proc is visible: a missing host mount, not a node without memory features.
            throw new IOException("none of " + NODES + ", " + SWAPS + ", " + HUGEPAGES + " is readable under " + host);
        }
        return b.build();
    }

    private static boolean numa(HostFs host, Features.Builder b, Warnings warnings) {
        try {
            // a kernel built without NUMA has no node bus: its memory is one node
            int nodes = Math.max(1, host.listHardware(NODES).size());
            b.attribute("numa", "is_numa", Boolean.toString(nodes > 1));
            b.attribute("numa", "node_count", Integer.toString(nodes));
            b.origin("numa", host.path(NODES).toString());
            return true;
        } catch (IOException | RuntimeException e) {
            warnings.warn("memory.numa left out: cannot list " + NODES + " (" + e.getClass().getSimpleName() + ")");
            return false;
        }
    }

    private static boolean swap(HostFs host, Features.Builder b, Warnings warnings) {
        try {
            long lines = host.read(SWAPS).lines().filter(l -> !l.isBlank()).count();
            b.attribute("swap", "enabled", Boolean.toString(lines > 1));
            b.origin("swap", host.path(SWAPS).toString());
            return true;
        } catch (IOException | RuntimeException e) {
            warnings.warn("memory.swap left out: cannot read " + SWAPS + " (" + HostFs.reason(e) + ")");
            return false;
        }
    }

    private static void nv(HostFs host, Features.Builder b, Warnings warnings) {
        List<String> devices;
        try {
            devices = host.listHardware(ND);
        } catch (IOException | RuntimeException e) {
            warnings.warn("memory.nv left out: cannot list " + ND + " (" + e.getClass().getSimpleName() + ")");
            return;
        }
        b.instances("nv");
        b.origin("nv", host.path(ND).toString());
        for (String name : devices) {
            String dir = ND + "/" + name;
            Map<String, String> attrs = new LinkedHashMap<>();
            attrs.put("name", name);
            for (String attr : List.of("devtype", "mode")) {
                host.readTrimmed(dir + "/" + attr).ifPresent(v -> attrs.put(attr, v));
            }
            b.instance("nv", attrs, host.path(dir).toString());
        }
    }

    private static boolean hugepages(HostFs host, Features.Builder b, Warnings warnings) {
        List<String> entries;
        try {
            entries = host.listHardware(HUGEPAGES); // none without huge page support in the kernel
        } catch (IOException | RuntimeException e) {
            warnings.warn("memory.hugepages left out: cannot list " + HUGEPAGES + " (" + e.getClass().getSimpleName() + ")");
            return false;
        }
        Map<String, String> attrs = new LinkedHashMap<>();
        boolean enabled = false;
        for (String entry : entries) {
            String dir = HUGEPAGES + "/" + entry;
            if (!entry.startsWith("hugepages-") || !entry.endsWith("kB") || !host.isDirectory(dir)) {
                continue;
            }
            String size = entry.substring("hugepages-".length(), entry.length() - "kB".length());
            String count = host.readTrimmed(dir + "/nr_hugepages").orElse(null);
            if (!size.matches("[0-9]{1,15}") || count == null || !count.matches("[0-9]{1,18}")) {
                warnings.warn("memory.hugepages: " + dir + " skipped: page size or nr_hugepages is not a number");
                continue;
            }
            enabled |= Long.parseLong(count) > 0;
            attrs.put("hugepages-" + binaryQuantity(Long.parseLong(size)), count);
        }
        attrs.put("enabled", Boolean.toString(enabled));
        b.attributes("hugepages", attrs);
        b.origin("hugepages", host.path(HUGEPAGES).toString());
        return true;
    }

    /**
     * {@code kib} KiB as Kubernetes writes a binary quantity: the largest suffix that keeps the number whole
     * (2048 → "2Mi", 1048576 → "1Gi", 1536 → "1536Ki").
     */
    static String binaryQuantity(long kib) {
        String[] suffixes = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        long n = kib;
        int i = 0;
        while (n != 0 && n % 1024 == 0 && i < suffixes.length - 1) {
            n /= 1024;
            i++;
        }
        return n + suffixes[i];
    }
}
