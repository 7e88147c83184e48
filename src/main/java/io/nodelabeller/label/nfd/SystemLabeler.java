package io.nodelabeller.label.nfd;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;

/**
 * NFD's system labels: {@code system-os_release.ID}, {@code .VERSION_ID}, {@code .VERSION_ID.major},
 * {@code .VERSION_ID.minor}. DMI ids and the node name stay features. A value that is no valid label value
 * ("opensuse leap") is dropped by the labelling stage, as NFD drops it.
 */
public final class SystemLabeler implements Labeler {

    private static final List<String> FIELDS = List.of("ID", "VERSION_ID", "VERSION_ID.major", "VERSION_ID.minor");

    @Override
    public String name() {
        return "system";
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        for (String field : FIELDS) {
            String v = f.attribute("system.osrelease", field);
            if (v != null) {
                out.add(Label.of(Nfd.PREFIX + "system-os_release." + field, v, name(),
                        Evidence.attribute(f, "system.osrelease", field)));
            }
        }
        return out;
    }
}
