package io.nodelabeller.source.usb;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * USB devices as NFD's usb source sees them: every entry of {@code /sys/bus/usb/devices} that has an
 * {@code idProduct} file is a device (interfaces and ports have none). Attributes {@code class}
 * (bDeviceClass), {@code vendor} (idVendor), {@code device} (idProduct), {@code serial}; empty or missing
 * values are left out. A device of class {@code 00} declares its class per interface: it yields one
 * {@code usb.device} instance per interface that has a {@code bInterfaceClass}, with that class.
 *
 * <p>Listed with {@link HostFs#listHardware}: no USB bus (a VM) is no devices, as in NFD; an unlistable
 * {@code /sys/bus/usb/devices}, or no visible sysfs at all, fails the source (its labels are kept).
 * Each instance's origin is its device's directory.
 */
public final class UsbSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "usb";

    static final String DEVICES = "/sys/bus/usb/devices";
    private static final Map<String, String> FILES = orderedFiles();

    private static Map<String, String> orderedFiles() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("class", "bDeviceClass");
        m.put("vendor", "idVendor");
        m.put("device", "idProduct");
        m.put("serial", "serial");
        return m;
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws IOException {
        Features.Builder b = Features.builder(NAME).instances("device");
        b.origin("device", host.path(DEVICES).toString());
        for (String entry : host.listHardware(DEVICES)) {
            String dir = DEVICES + "/" + entry;
            if (!host.exists(dir + "/idProduct")) {
                continue;
            }
            for (Map<String, String> attrs : readDevice(host, dir)) {
                b.instance("device", attrs, host.path(dir).toString());
            }
        }
        return b.build();
    }

    private static List<Map<String, String>> readDevice(HostFs host, String dir) {
        Map<String, String> attrs = new LinkedHashMap<>();
        FILES.forEach((attr, file) -> host.readTrimmed(dir + "/" + file)
                .filter(v -> !v.isEmpty())
                .ifPresent(v -> attrs.put(attr, v)));
        if (!"00".equals(attrs.get("class"))) {
            return List.of(attrs);
        }
        // Class 00: "defined at interface level". One instance per interface, in name order, as NFD's usb source
        // makes them (source/usb/utils.go, readUsbDevInfo): two interfaces of one class are two instances.
        List<String> classes = new ArrayList<>();
        for (String sub : host.listOrEmpty(dir).stream().sorted().toList()) {
            host.readTrimmed(dir + "/" + sub + "/bInterfaceClass").filter(v -> !v.isEmpty()).ifPresent(classes::add);
        }
        List<Map<String, String>> out = new ArrayList<>();
        for (String c : classes) {
            Map<String, String> copy = new LinkedHashMap<>(attrs);
            copy.put("class", c);
            out.add(copy);
        }
        return out;
    }
}
