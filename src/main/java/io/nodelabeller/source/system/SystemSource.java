package io.nodelabeller.source.system;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.HostText;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NFD's {@code system} source (named "system" as in NFD, so its keys are {@code system.osrelease},
 * {@code system.dmiid}, {@code system.name}): the operating system from {@code /etc/os-release}, the
 * machine's DMI ids, and the node name.
 */
public final class SystemSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "system";

    static final String OS_RELEASE = "/etc/os-release";
    static final String DMI_DIR = "/sys/devices/virtual/dmi/id";

    /** The DMI attributes NFD reads: everyone may read these (serial numbers and the UUID are root-only). */
    static final List<String> DMI_ATTRIBUTES = List.of("bios_date", "bios_vendor", "bios_version",
            "board_asset_tag", "board_name", "board_vendor", "board_version", "chassis_asset_tag", "chassis_type",
            "chassis_vendor", "chassis_version", "product_family", "product_name", "product_sku", "product_version",
            "sys_vendor");

    private static final Pattern LINE = Pattern.compile("^(\\w+)=(.+)");
    private static final Pattern VERSION = Pattern.compile("^(\\d+)(\\.(\\d+))?(\\..*)?$");

    private final String nodeName;

    /** @param nodeName the node's name ({@code NODE_NAME}), or null when it is not set */
    public SystemSource(String nodeName) {
        this.nodeName = nodeName;
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) {
        Features.Builder b = Features.builder(NAME);
        // always there, as in NFD (source/system/system.go: utils.NodeName(), "" when NODE_NAME is unset)
        b.attribute("name", "nodename", nodeName == null ? "" : nodeName);
        b.origin("name", "environment variable NODE_NAME");
        if (host.exists(OS_RELEASE)) {
            Map<String, String> release;
            try {
                release = parseOsRelease(host.read(OS_RELEASE).lines().toList());
            } catch (IOException | RuntimeException e) {
                warnings.warn("system.osrelease: cannot read " + OS_RELEASE + " (" + HostFs.reason(e) + ")");
                release = null;
            }
            if (release != null && release.isEmpty()) {
                warnings.warn("system.osrelease: " + OS_RELEASE + " has no KEY=value line");
            } else if (release != null) {
                b.attributes("osrelease", release);
                b.origin("osrelease", host.path(OS_RELEASE).toString());
            }
        } else {
            warnings.warn("system.osrelease: no " + OS_RELEASE + " under the host root");
        }
        Map<String, String> dmi = new LinkedHashMap<>();
        for (String attribute : DMI_ATTRIBUTES) {
            host.readTrimmed(DMI_DIR + "/" + attribute).ifPresent(v -> dmi.put(attribute, v));
        }
        if (!dmi.isEmpty()) {
            b.attributes("dmiid", dmi);
            b.origin("dmiid", host.path(DMI_DIR).toString());
        }
        return b.build();
    }

    /**
     * os-release as NFD reads it: every {@code KEY=value} line with at least one character after the {@code =}, value
     * with surrounding quotes trimmed — so {@code VARIANT_ID=""} is an empty value, {@code VARIANT_ID=} no value; then {@code VERSION_ID.major} and {@code VERSION_ID.minor} where VERSION_ID starts
     * with digits (digits kept verbatim: "22.04" → "22", "04").
     */
    static Map<String, String> parseOsRelease(List<String> lines) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                out.put(m.group(1), HostText.trim(m.group(2), "\"'"));
            }
        }
        String versionId = out.get("VERSION_ID");
        if (versionId != null) {
            Matcher v = VERSION.matcher(versionId);
            if (v.matches()) {
                out.put("VERSION_ID.major", v.group(1));
                if (v.group(3) != null) {
                    out.put("VERSION_ID.minor", v.group(3));
                }
            }
        }
        return out;
    }
}
