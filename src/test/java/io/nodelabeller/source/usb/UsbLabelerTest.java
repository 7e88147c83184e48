package io.nodelabeller.source.usb;

import io.nodelabeller.source.usb.UsbConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.source.usb.UsbSource;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestConfigs;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UsbLabelerTest {

    private static List<String> keys(UsbConfig config, Features f) {
        return new UsbLabeler(config).labels(f).stream().map(Label::key).sorted().toList();
    }

    private static Features gpuServer() {
        try {
            return new UsbSource().discover(Hosts.fs("gpu-server"), m -> { });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void defaultsLabelOnlyWhitelistedClasses() {
        // hubs (09) and HID (03, from the interfaces of a class-00 device) are not in 0e/ef/fe/ff
        assertEquals(List.of("feature.node.kubernetes.io/usb-ef_046b_ffb0.present"), keys(UsbConfig.DEFAULT, gpuServer()));
    }

    @Test
    void interfaceClassIsUsedForClass00Devices() {
        assertEquals(List.of("feature.node.kubernetes.io/usb-03_046b_ff10.present"),
                keys(TestConfigs.usb(List.of("03"), UsbConfig.DEFAULT.deviceLabelFields()), gpuServer()));
    }

    @Test
    void fieldsInCanonicalOrderInvalidOnesIgnored() {
        assertEquals(List.of("feature.node.kubernetes.io/usb-ef_1234567890.present"),
                keys(TestConfigs.usb(List.of("EF"), List.of("serial", "bogus", "class")), gpuServer()));
        assertEquals(List.of("feature.node.kubernetes.io/usb-ef_046b_ffb0.present"),
                keys(TestConfigs.usb(List.of("ef"), List.of("bogus")), gpuServer()));
    }

    @Test
    void missingFieldIsEmptyAsNfd() {
        Features f = Features.builder("usb").instance("device", Map.of("class", "ff", "vendor", "1a6e", "device", "089a")).build();
        List<Label> labels = new UsbLabeler(TestConfigs.usb(List.of("ff"), List.of("vendor", "serial"))).labels(f);
        assertEquals(List.of("feature.node.kubernetes.io/usb-1a6e_.present"), labels.stream().map(Label::key).toList());
        assertTrue(labels.get(0).evidence().contains("vendor='1a6e' serial=''"), labels.get(0).evidence());
    }
}
