package io.nodelabeller.source.network;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Network interfaces as NFD's network source sees them, from {@code /sys/class/net}: an interface with a
 * {@code device} entry (backed by hardware) is a {@code network.device} instance with {@code name},
 * {@code operstate}, {@code speed}, {@code sriov_numvfs}, {@code sriov_totalvfs}, {@code mtu}; any other is a
 * {@code network.virtual} instance with {@code name}, {@code operstate}, {@code speed}, {@code mtu}.
 * Unreadable attributes (virtual interfaces answer EINVAL for {@code speed}) are left out.
 * Listed with {@link HostFs#listHardware}: an unlistable {@code /sys/class/net} fails the source.
 */
public final class NetworkSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "network";

    static final String NET = "/sys/class/net";
    private static final List<String> DEVICE_ATTRS =
            List.of("operstate", "speed", "device/sriov_numvfs", "device/sriov_totalvfs", "mtu");
    private static final List<String> VIRTUAL_ATTRS = List.of("operstate", "speed", "mtu");

    @Override
    public Features discover(HostFs host, Warnings warnings) throws IOException {
        Features.Builder b = Features.builder(NAME).instances("device").instances("virtual");
        b.origin("device", host.path(NET).toString());
        b.origin("virtual", host.path(NET).toString());
        for (String name : host.listHardware(NET)) {
            if (name.equals("bonding_masters")) {
                continue;
            }
            String dir = NET + "/" + name;
            boolean physical = host.exists(dir + "/device");
            Map<String, String> attrs = new LinkedHashMap<>();
            attrs.put("name", name);
            for (String attr : physical ? DEVICE_ATTRS : VIRTUAL_ATTRS) {
                String key = attr.substring(attr.lastIndexOf('/') + 1);
                host.readTrimmed(dir + "/" + attr).ifPresent(v -> attrs.put(key, v));
            }
            String feature = physical ? "device" : "virtual";
            b.instance(feature, attrs, host.path(dir).toString());
        }
        return b.build();
    }
}
