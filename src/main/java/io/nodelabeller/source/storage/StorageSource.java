package io.nodelabeller.source.storage;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Block devices as NFD's storage source sees them: one {@code storage.block} instance per entry of
 * {@code /sys/block} with {@code name} and, where readable, {@code dax}, {@code rotational}, {@code nr_zones},
 * {@code zoned} from its {@code queue/} directory. Listed with {@link HostFs#listHardware}:
 * no {@code /sys/block} on a visible sysfs is no block devices; an unlistable one fails the source.
 * Each instance's origin is its block device's directory.
 */
public final class StorageSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "storage";

    static final String BLOCK = "/sys/block";
    private static final List<String> QUEUE_ATTRS = List.of("dax", "rotational", "nr_zones", "zoned");

    @Override
    public Features discover(HostFs host, Warnings warnings) throws IOException {
        Features.Builder b = Features.builder(NAME).instances("block");
        b.origin("block", host.path(BLOCK).toString());
        for (String name : host.listHardware(BLOCK)) {
            String dir = BLOCK + "/" + name;
            Map<String, String> attrs = new LinkedHashMap<>();
            attrs.put("name", name);
            for (String attr : QUEUE_ATTRS) {
                host.readTrimmed(dir + "/queue/" + attr).ifPresent(v -> attrs.put(attr, v));
            }
            b.instance("block", attrs, host.path(dir).toString());
        }
        return b.build();
    }
}
