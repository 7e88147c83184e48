package io.nodelabeller.source.local;

import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
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
    public List<LabelDoc> docs() {
        String from = "/etc/kubernetes/node-feature-discovery/features.d/*";
        return List.of(
                LabelDoc.key(LabelValidity.NFD_PREFIX + "<key>").source(LocalSource.NAME)
                        .from(from)
                        .example(LabelValidity.NFD_PREFIX + "node-pool", "a100-inference")
                        .means("Each key=value line (a bare key means true) of a feature file whose key has no prefix."),
                LabelDoc.key("<domain>/<key>").source(LocalSource.NAME)
                        .from(from)
                        .example("example.com/rack", "r12-u07")
                        .means("The same for a key with its own prefix (namespace rules apply: core.extraLabelNs, "
                                + "core.denyLabelNs)."));
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        for (Map.Entry<String, String> e : f.attributes("local.label").entrySet()) {
            out.add(Label.of(e.getKey(), e.getValue(), LocalSource.NAME, Evidence.attribute(f, "local.label", e.getKey())));
        }
        return out;
    }
}
