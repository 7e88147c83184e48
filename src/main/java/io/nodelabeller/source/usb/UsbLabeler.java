package io.nodelabeller.source.usb;

import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.DeviceLabels;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;

import java.util.List;

/**
 * NFD's usb labels: {@code usb-<fields>.present=true} per whitelisted device class (default classes
 * 0e, ef, fe, ff; fields class, vendor, device). Config {@code sources.usb.*}. A field a device lacks (a
 * serial, say) is empty in the label, as in NFD; a label made invalid by its values (a serial with spaces)
 * is dropped by the labelling stage.
 */
public final class UsbLabeler implements Labeler {

    private final DeviceLabels devices;

    public UsbLabeler(UsbConfig config) {
        this.devices = new DeviceLabels("usb", "usb.device", config.deviceClassWhitelist(), config.deviceLabelFields());
    }

    @Override
    public List<LabelDoc> docs() {
        return List.of(LabelDoc.key(LabelValidity.NFD_PREFIX + "usb-<fields>.present").source(UsbSource.NAME)
                .from("/sys/bus/usb/devices/*/{bDeviceClass,idVendor,idProduct,serial}, */bInterfaceClass")
                .example(LabelValidity.NFD_PREFIX + "usb-ef_046b_ffb0.present", "true")
                .means("A device (or, for class 00, an interface) whose class starts with an entry of "
                        + "sources.usb.deviceClassWhitelist (default 0e, ef, fe, ff). <fields> is "
                        + "sources.usb.deviceLabelFields (default class,vendor,device) joined by '_'."));
    }

    @Override
    public List<Label> labels(Features f) {
        return devices.labels(f, UsbSource.NAME, null, null);
    }
}
