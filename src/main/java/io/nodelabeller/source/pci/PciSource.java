package io.nodelabeller.source.pci;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * PCI devices as NFD's pci source sees them: one {@code pci.device} instance per directory of
 * {@code /sys/bus/pci/devices} with attributes {@code class} (4 hex digits, prog-if dropped), {@code vendor},
 * {@code device}, {@code subsystem_vendor}, {@code subsystem_device} and, when present, {@code sriov_totalvfs},
 * {@code iommu_group/type}, {@code iommu/intel-iommu/version}.
 *
 * <p>A device with a missing or non-hexadecimal mandatory file is skipped with a warning (when every device is, the
 * source fails: its labels are kept); the devices directory
 * is listed with {@link HostFs#listHardware} (no PCI bus, as on some Arm VMs, is no devices; an unlistable
 * one fails the source). Each instance's origin is its device directory.
 */
public final class PciSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "pci";

    static final String DEVICES = "/sys/bus/pci/devices";
    /** The files every device must have; also the canonical order of label fields. */
    public static final List<String> MANDATORY = List.of("class", "vendor", "device", "subsystem_vendor", "subsystem_device");
    static final List<String> OPTIONAL = List.of("sriov_totalvfs", "iommu_group/type", "iommu/intel-iommu/version");

    @Override
    public Features discover(HostFs host, Warnings warnings) throws IOException {
        Features.Builder b = Features.builder(NAME).instances("device");
        String devices = host.path(DEVICES).toString();
        b.origin("device", devices);
        // Ids repeat from device to device (a few vendors and classes, identical cards): each distinct value is kept
        // once. A big host's 2,000 devices hold some 10,000 values, mostly the same few dozen.
        Map<String, String> values = new HashMap<>();
        List<String> entries = host.listHardware(DEVICES);
        int read = 0;
        for (String entry : entries) {
            String dir = DEVICES + "/" + entry;
            Optional<Map<String, String>> attrs = readDevice(host, dir, values, warnings);
            if (attrs.isPresent()) {
                b.instance("device", attrs.get(), devices + "/" + entry); // host.path(dir), without a Path per device
                read++;
            }
        }
        if (read == 0 && !entries.isEmpty()) {
            // every device there and none readable: that says nothing about the node's hardware (a mount or
            // permission problem), so the source fails and the labels of the last good cycle are kept
            throw new IOException("none of the " + entries.size() + " PCI devices under " + devices + " could be read");
        }
        return b.build();
    }

    private static Optional<Map<String, String>> readDevice(HostFs host, String dir, Map<String, String> values,
                                                            Warnings warnings) {
        Map<String, String> attrs = new LinkedHashMap<>();
        for (String name : MANDATORY) {
            String raw;
            try {
                raw = host.read(dir + "/" + name);
            } catch (IOException | RuntimeException e) {
                warnings.warn("PCI device " + dir + " skipped: cannot read " + name + " (" + HostFs.reason(e) + ")");
                return Optional.empty();
            }
            String value = id(raw);
            if (!isHexId(value)) {
                warnings.warn("PCI device " + dir + " skipped: " + name + " is not a hexadecimal id: '" + printable(raw) + "'");
                return Optional.empty();
            }
            // The class file carries base class, subclass and programming interface; NFD keeps the first two.
            String kept = name.equals("class") && value.length() > 4 ? value.substring(0, 4) : value;
            attrs.put(name, values.computeIfAbsent(kept, v -> v));
        }
        for (String name : OPTIONAL) {
            host.readTrimmed(dir + "/" + name)
                    .ifPresent(v -> attrs.put(name, values.computeIfAbsent(v.startsWith("0x") ? v.substring(2) : v, k -> k)));
        }
        return Optional.of(attrs);
    }

    /** A sysfs id as the kernel prints it ({@code "0x10de\n"}, {@code "0x030200"}): trimmed, lower-cased, no 0x. */
    public static String id(String raw) {
        String s = raw.trim().toLowerCase(Locale.ROOT);
        return s.startsWith("0x") ? s.substring(2) : s;
    }

    /**
     * 1 to 8 lower-case hexadecimal digits: the kernel prints ids as 0x%04x and the class as 0x%06x; anything longer or
     * not hex is not an id. (A loop, not a pattern: it runs five times per device, 10,000 times a cycle on a big host.)
     */
    static boolean isHexId(String value) {
        if (value.isEmpty() || value.length() > 8) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** The start of {@code raw} with control characters shown as '?', for a warning line. */
    static String printable(String raw) {
        String s = raw.trim();
        if (s.length() > 40) {
            s = s.substring(0, 40) + "...";
        }
        return s.replaceAll("[\\p{Cntrl}\\uFFFD]", "?");
    }
}
