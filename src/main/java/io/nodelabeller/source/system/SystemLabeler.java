package io.nodelabeller.source.system;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
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
    public List<LabelDoc> docs() {
        List<String> examples = List.of("ubuntu", "22.04", "22", "04");
        List<String> meanings = List.of("ID of the OS.", "VERSION_ID of the OS.", "First number of VERSION_ID.",
                "Second number of VERSION_ID.");
        List<LabelDoc> out = new ArrayList<>();
        for (int i = 0; i < FIELDS.size(); i++) {
            out.add(LabelDoc.key(LabelValidity.NFD_PREFIX + "system-os_release." + FIELDS.get(i)).source(SystemSource.NAME)
                    .from("/etc/os-release").example(examples.get(i))
                    .means(meanings.get(i)));
        }
        return out;
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        for (String field : FIELDS) {
            String v = f.attribute("system.osrelease", field);
            if (v != null) {
                out.add(Label.of(LabelValidity.NFD_PREFIX + "system-os_release." + field, v, SystemSource.NAME,
                        Evidence.attribute(f, "system.osrelease", field)));
            }
        }
        return out;
    }
}
