package io.nodelabeller.source.kernel;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
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
    public List<LabelDoc> docs() {
        String osrelease = "/proc/sys/kernel/osrelease";
        return List.of(
                LabelDoc.key(LabelValidity.NFD_PREFIX + "kernel-version.full").source(KernelSource.NAME)
                        .from(osrelease).example("5.15.0-91-generic")
                        .means("The kernel release as the kernel reports it."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "kernel-version.major").source(KernelSource.NAME)
                        .from(osrelease).example("5")
                        .means("First number of the release; absent when the release is not <major>[.<minor>[.<revision>]][-...], as in NFD."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "kernel-version.minor").source(KernelSource.NAME)
                        .from(osrelease).example("15")
                        .means("Second number of the release (empty when it has none); absent as major is."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "kernel-version.revision").source(KernelSource.NAME)
                        .from(osrelease).example("0")
                        .means("Third number of the release (empty when it has none); absent as major is."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "kernel-config.<OPT>").source(KernelSource.NAME)
                        .from("the kernel config: sources.kernel.kconfigFile, /proc/config.gz, /boot/config-<release>, ...")
                        .example(LabelValidity.NFD_PREFIX + "kernel-config.NO_HZ_FULL", "true")
                        .means("Each option of sources.kernel.configOpts (default NO_HZ, NO_HZ_IDLE, NO_HZ_FULL, PREEMPT) the "
                                + "config sets: y and m give true, other values are kept."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "kernel-selinux.enabled").source(KernelSource.NAME)
                        .from("/sys/fs/selinux/enforce").example("true")
                        .means("SELinux is enabled (only present when true)."));
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        for (String part : List.of("full", "major", "minor", "revision")) {
            String v = f.attribute("kernel.version", part);
            if (v != null) {
                out.add(Label.of(LabelValidity.NFD_PREFIX + "kernel-version." + part, v, KernelSource.NAME,
                        Evidence.attribute(f, "kernel.version", part)));
            }
        }
        for (String opt : configOpts) {
            String v = f.attribute("kernel.config", opt);
            if (v != null) {
                out.add(Label.of(LabelValidity.NFD_PREFIX + "kernel-config." + opt, v.equals("y") || v.equals("m") ? "true" : v,
                        KernelSource.NAME, Evidence.attribute(f, "kernel.config", opt)));
            }
        }
        if ("true".equals(f.attribute("kernel.selinux", "enabled"))) {
            out.add(Label.of(LabelValidity.NFD_PREFIX + "kernel-selinux.enabled", "true", KernelSource.NAME,
                    Evidence.attribute(f, "kernel.selinux", "enabled")));
        }
        return out;
    }
}
