package io.nodelabeller.label.nfd;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;

/** {@code kernel-version.*} (NFD's kernel source labels). */
public final class KernelLabeler implements Labeler {

    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        for (String part : List.of("full", "major", "minor", "revision")) {
            String v = f.attribute("kernel.version", part);
            if (v != null) {
                out.add(Label.of(Nfd.PREFIX + "kernel-version." + part, v, name(),
                        Evidence.attribute(f, "kernel.version", part)));
            }
        }
        return out;
    }
}
