package io.nodelabeller.label.nfd;

import io.nodelabeller.config.PciConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
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
        this.devices = new DeviceLabels("pci", "pci.device", config.deviceClassWhitelist(), config.deviceLabelFields(),
                PciConfig.FIELDS, PciConfig.DEFAULT.deviceLabelFields());
    }

    @Override
    public String name() {
        return "pci";
    }

    @Override
    public List<Label> labels(Features f) {
        return devices.labels(f, name(), ".sriov.capable", "sriov_totalvfs");
    }
}
