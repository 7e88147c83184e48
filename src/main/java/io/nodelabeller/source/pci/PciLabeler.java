package io.nodelabeller.source.pci;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.DeviceLabels;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.List;

/**
 * NFD's pci labels: {@code pci-<fields>.present=true} per whitelisted device class and
 * {@code pci-<fields>.sriov.capable=true} when the device has a {@code sriov_totalvfs} file (any value,
 * even 0, as NFD). Config {@code sources.pci.deviceClassWhitelist} / {@code deviceLabelFields}.
 */
public final class PciLabeler implements Labeler {

    private final DeviceLabels devices;

    public PciLabeler(PciConfig config) {
        this.devices = new DeviceLabels("pci", "pci.device", config.deviceClassWhitelist(), config.deviceLabelFields());
    }

    @Override
    public List<LabelDoc> docs() {
        String dir = "/sys/bus/pci/devices/*/";
        String fields = " <fields> is sources.pci.deviceLabelFields (default class,vendor) joined by '_'.";
        return List.of(
                LabelDoc.key(LabelValidity.NFD_PREFIX + "pci-<fields>.present").source(PciSource.NAME)
                        .from(dir + "{class,vendor,device,subsystem_vendor,subsystem_device}")
                        .example(LabelValidity.NFD_PREFIX + "pci-0302_10de.present", "true")
                        .means("A device whose class starts with an entry of sources.pci.deviceClassWhitelist (default 03, 0b40, 12)."
                                + fields),
                LabelDoc.key(LabelValidity.NFD_PREFIX + "pci-<fields>.sriov.capable").source(PciSource.NAME)
                        .from(dir + "sriov_totalvfs")
                        .example(LabelValidity.NFD_PREFIX + "pci-0207_15b3.sriov.capable", "true")
                        .means("Such a device has a sriov_totalvfs file (any value, as NFD)."));
    }

    @Override
    public List<Label> labels(Features f) {
        return devices.labels(f, PciSource.NAME, ".sriov.capable", "sriov_totalvfs");
    }
}
