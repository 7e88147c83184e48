package io.nodelabeller.source.usb;

import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.yaml.Checks;
import io.nodelabeller.config.yaml.YamlNode;
import java.util.List;

/** {@code sources.usb:} as in NFD. */
public record UsbConfig(List<String> deviceClassWhitelist, List<String> deviceLabelFields) {

    public static final List<String> FIELDS = List.of("class", "vendor", "device", "serial");
    public static final UsbConfig DEFAULT = new UsbConfig(List.of("0e", "ef", "fe", "ff"), List.of("class", "vendor", "device"));

    /** {@code sources.usb}, for the config loader. */
    public static final SourceSection<UsbConfig> SECTION = new SourceSection<>("usb", DEFAULT, UsbConfig::read);

    static UsbConfig read(YamlNode n) {
        n.object("deviceClassWhitelist", "deviceLabelFields");
        return new UsbConfig(
                Checks.matchingOrWarn(n.child("deviceClassWhitelist"), DEFAULT.deviceClassWhitelist(),
                        java.util.regex.Pattern.compile("[0-9a-fA-F]{1,2}"), "a USB class of 1 or 2 hex digits"),
                Checks.knownOrDefault(n.child("deviceLabelFields"), DEFAULT.deviceLabelFields(), FIELDS));
    }
}
