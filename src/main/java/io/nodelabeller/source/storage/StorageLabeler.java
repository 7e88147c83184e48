package io.nodelabeller.source.storage;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;

/**
 * NFD's storage label: {@code storage-nonrotationaldisk=true} when any block device reports
 * {@code rotational} 0. As in NFD that includes loop and zram devices.
 */
public final class StorageLabeler implements Labeler {

    @Override
    public List<LabelDoc> docs() {
        return List.of(LabelDoc.key(LabelValidity.NFD_PREFIX + "storage-nonrotationaldisk").source(StorageSource.NAME)
                .from("/sys/block/*/queue/rotational").example("true")
                .means("Some block device is non-rotational (SSD, NVMe; loop and zram devices count too, as in NFD)."));
    }

    @Override
    public List<Label> labels(Features f) {
        List<Instance> blocks = f.instances("storage.block");
        List<String> where = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            if ("0".equals(blocks.get(i).get("rotational"))) {
                where.add(Evidence.where(f, "storage.block", i));
            }
        }
        if (where.isEmpty()) {
            return List.of();
        }
        return List.of(Label.of(LabelValidity.NFD_PREFIX + "storage-nonrotationaldisk", "true", StorageSource.NAME,
                "storage.block rotational = '0' from " + Evidence.join(where, "/queue/rotational")));
    }
}
