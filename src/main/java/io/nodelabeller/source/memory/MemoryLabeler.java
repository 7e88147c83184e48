package io.nodelabeller.source.memory;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.label.Evidence;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;

/**
 * NFD's memory labels: {@code memory-numa}, {@code memory-swap} (NFD's code name; its docs say
 * {@code memory-swap.enabled}), {@code memory-nv.present}, {@code memory-nv.dax}; each {@code true} or absent.
 * Huge pages are feature-only.
 */
public final class MemoryLabeler implements Labeler {

    @Override
    public List<LabelDoc> docs() {
        return List.of(
                LabelDoc.key(LabelValidity.NFD_PREFIX + "memory-numa").source(MemorySource.NAME)
                        .from("/sys/bus/node/devices").example("true")
                        .means("More than one NUMA node."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "memory-swap").source(MemorySource.NAME)
                        .from("/proc/swaps").example("true")
                        .means("Swap is enabled."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "memory-nv.present").source(MemorySource.NAME)
                        .from("/sys/bus/nd/devices").example("true")
                        .means("A non-volatile memory (NVDIMM) device is present."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "memory-nv.dax").source(MemorySource.NAME)
                        .from("/sys/bus/nd/devices/*/devtype").example("true")
                        .means("An NVDIMM region is configured in DAX mode (devtype nd_dax)."));
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        if ("true".equals(f.attribute("memory.numa", "is_numa"))) {
            out.add(label("memory-numa", Evidence.attribute(f, "memory.numa", "node_count")));
        }
        if ("true".equals(f.attribute("memory.swap", "enabled"))) {
            out.add(label("memory-swap", Evidence.attribute(f, "memory.swap", "enabled")));
        }
        List<Instance> nv = f.instances("memory.nv");
        if (!nv.isEmpty()) {
            out.add(label("memory-nv.present", nv.size() + " memory.nv device(s)" + Evidence.from(f, "memory.nv")));
        }
        for (int i = 0; i < nv.size(); i++) {
            if ("nd_dax".equals(nv.get(i).get("devtype"))) {
                out.add(label("memory-nv.dax", Evidence.instance(f, "memory.nv", i, "devtype", "devtype")));
                break;
            }
        }
        return out;
    }

    private Label label(String name, String evidence) {
        return Label.of(LabelValidity.NFD_PREFIX + name, "true", MemorySource.NAME, evidence);
    }
}
