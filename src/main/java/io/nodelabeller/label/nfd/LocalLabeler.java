package io.nodelabeller.label.nfd;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Labels of NFD's local source: each key of {@code local.label} as written (no "local-" prefix). Unprefixed
 * keys get {@code feature.node.kubernetes.io/} in the labelling stage, which also drops invalid names and values.
 */
public final class LocalLabeler implements Labeler {

    @Override
    public String name() {
        return "local";
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        String origin = f.origin("local.label");
        for (Map.Entry<String, String> e : f.attributes("local.label").entrySet()) {
            out.add(Label.of(e.getKey(), e.getValue(), name(), "local.label." + e.getKey() + " = '" + e.getValue()
                    + "' from a feature file" + (origin == null ? "" : " in " + origin)));
        }
        return out;
    }
}
