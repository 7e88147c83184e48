package io.nodelabeller.source.network;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.ArrayList;
import java.util.List;

/**
 * NFD's network labels: {@code network-sriov.capable=true} when a hardware interface has an integer
 * {@code sriov_totalvfs} above 0, {@code network-sriov.configured=true} when one has {@code sriov_numvfs}
 * above 0. Virtual interfaces never count.
 */
public final class NetworkLabeler implements Labeler {

    @Override
    public List<LabelDoc> docs() {
        return List.of(
                LabelDoc.of(LabelValidity.NFD_PREFIX + "network-sriov.capable", NetworkSource.NAME, "/sys/class/net/*/device/sriov_totalvfs", "true",
                        "A hardware network interface supports SR-IOV (sriov_totalvfs above 0)."),
                LabelDoc.of(LabelValidity.NFD_PREFIX + "network-sriov.configured", NetworkSource.NAME, "/sys/class/net/*/device/sriov_numvfs", "true",
                        "A hardware network interface has SR-IOV virtual functions configured (sriov_numvfs above 0)."));
    }

    @Override
    public List<Label> labels(Features f) {
        List<Label> out = new ArrayList<>();
        label(f, "sriov_totalvfs", "network-sriov.capable", out);
        label(f, "sriov_numvfs", "network-sriov.configured", out);
        return out;
    }

    private void label(Features f, String attr, String name, List<Label> out) {
        List<Instance> devices = f.instances("network.device");
        List<String> facts = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            String v = devices.get(i).get(attr);
            if (positive(v)) {
                String origin = f.instanceOrigin("network.device", i);
                facts.add(devices.get(i).get("name") + " " + attr + " = '" + v + "'"
                        + (origin == null ? "" : " from " + origin + "/device/" + attr));
            }
        }
        if (!facts.isEmpty()) {
            out.add(Label.of(LabelValidity.NFD_PREFIX + name, "true", NetworkSource.NAME, "network.device " + String.join("; ", facts)));
        }
    }

    /** NFD's test: the value parses as a (Go) int and is above 0; "abc", "-1", "" do not count. */
    private static boolean positive(String v) {
        if (v == null || !v.matches("[+-]?[0-9]{1,18}")) {
            return false;
        }
        return Long.parseLong(v) > 0;
    }
}
