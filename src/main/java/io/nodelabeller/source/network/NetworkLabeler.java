package io.nodelabeller.source.network;

import io.nodelabeller.label.Evidence;
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
                LabelDoc.key(LabelValidity.NFD_PREFIX + "network-sriov.capable").source(NetworkSource.NAME)
                        .from("/sys/class/net/*/device/sriov_totalvfs").example("true")
                        .means("A hardware network interface supports SR-IOV (sriov_totalvfs above 0)."),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "network-sriov.configured").source(NetworkSource.NAME)
                        .from("/sys/class/net/*/device/sriov_numvfs").example("true")
                        .means("A hardware network interface has SR-IOV virtual functions configured (sriov_numvfs above 0)."));
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
                facts.add(Evidence.instance(f, "network.device", i, attr, "device/" + attr));
            }
        }
        if (!facts.isEmpty()) {
            out.add(Label.of(LabelValidity.NFD_PREFIX + name, "true", NetworkSource.NAME, String.join("; ", facts)));
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
