package io.nodelabeller.label.nfd;

import io.nodelabeller.config.KernelConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;

/**
 * NFD's kernel labels: {@code kernel-version.*}, {@code kernel-config.<OPT>} for each {@code configOpts}
 * option the kernel config has ("y" and "m" become "true", other values stay as they are) and
 * {@code kernel-selinux.enabled=true} (only when true). Modules and KVM stay features.
 */
public final class KernelLabeler implements Labeler {

    private final List<String> configOpts;

    public KernelLabeler(KernelConfig config) {
        this.configOpts = List.copyOf(config.configOpts());
    }

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
        for (String opt : configOpts) {
            String v = f.attribute("kernel.config", opt);
            if (v != null) {
                out.add(Label.of(Nfd.PREFIX + "kernel-config." + opt, v.equals("y") || v.equals("m") ? "true" : v,
                        name(), Evidence.attribute(f, "kernel.config", opt)));
            }
        }
        if ("true".equals(f.attribute("kernel.selinux", "enabled"))) {
            out.add(Label.of(Nfd.PREFIX + "kernel-selinux.enabled", "true", name(),
                    Evidence.attribute(f, "kernel.selinux", "enabled")));
        }
        return out;
    }
}
