package io.nodelabeller.label;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What NFD's pci and usb labelers share: {@code <source>-<fields>.<suffix>=true} for each device instance
 * whose class starts with a whitelist entry, {@code <fields>} being the configured label fields in the
 * source's canonical order joined by '_'. Devices that give the same label are listed together in its evidence.
 */
public final class DeviceLabels {

    private final String source;
    private final String featureKey;
    private final List<String> whitelist;
    private final List<String> fields;

    /**
     * @param fields the label fields in label order, as the config resolved them ({@code deviceLabelFields}: known
     *               names only, the default when none)
     */
    public DeviceLabels(String source, String featureKey, List<String> whitelist, List<String> fields) {
        this.source = source;
        this.featureKey = featureKey;
        this.whitelist = whitelist.stream().map(w -> w.toLowerCase(Locale.ROOT)).toList();
        this.fields = List.copyOf(fields);
    }

    /**
     * The {@code .present} labels, plus {@code <fields><extraSuffix>} for the matching devices that have attribute
     * {@code extraAttr} (none when {@code extraAttr} is null).
     */
    public List<Label> labels(Features f, String labeler, String extraSuffix, String extraAttr) {
        Map<String, List<Integer>> present = new LinkedHashMap<>();
        Map<String, List<Integer>> more = new LinkedHashMap<>();
        List<Instance> devices = f.instances(featureKey);
        for (int i = 0; i < devices.size(); i++) {
            Instance dev = devices.get(i);
            String cls = dev.get("class") == null ? "" : dev.get("class");
            if (whitelist.stream().noneMatch(cls::startsWith)) {
                continue;
            }
            String devLabel = String.join("_", fields.stream().map(k -> dev.get(k) == null ? "" : dev.get(k)).toList());
            present.computeIfAbsent(devLabel, k -> new ArrayList<>()).add(i);
            if (extraAttr != null && dev.has(extraAttr)) {
                more.computeIfAbsent(devLabel, k -> new ArrayList<>()).add(i);
            }
        }
        List<Label> out = new ArrayList<>();
        present.forEach((devLabel, idx) -> out.add(label(f, labeler, devLabel + ".present", idx, List.of())));
        more.forEach((devLabel, idx) -> out.add(label(f, labeler, devLabel + extraSuffix, idx, List.of(extraAttr))));
        return out;
    }

    private Label label(Features f, String labeler, String name, List<Integer> idx, List<String> alsoShow) {
        Instance first = f.instances(featureKey).get(idx.get(0));
        StringBuilder facts = new StringBuilder(featureKey);
        for (String k : fields) {
            facts.append(' ').append(k).append("='").append(first.get(k) == null ? "" : first.get(k)).append('\'');
        }
        if (!fields.contains("class")) {
            facts.append(" class='").append(first.get("class")).append('\'');
        }
        for (String k : alsoShow) {
            facts.append(' ').append(k).append("='").append(first.get(k)).append('\'');
        }
        facts.append(" (class whitelist ").append(whitelist).append(") from ");
        facts.append(Evidence.join(idx.stream().map(i -> Evidence.where(f, featureKey, i)).toList(), ""));
        return Label.of(LabelValidity.NFD_PREFIX + source + "-" + name, "true", labeler, facts.toString());
    }
}
