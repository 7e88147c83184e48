package io.nodelabeller.source.pci;

import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.yaml.Checks;
import io.nodelabeller.config.yaml.YamlNode;
import java.util.List;

/** {@code sources.pci:} as in NFD. */
public record PciConfig(List<String> deviceClassWhitelist, List<String> deviceLabelFields) {

    public static final List<String> FIELDS = List.of("class", "vendor", "device", "subsystem_vendor", "subsystem_device");
    public static final PciConfig DEFAULT = new PciConfig(List.of("03", "0b40", "12"), List.of("class", "vendor"));

    /** {@code sources.pci}, for the config loader. */
    public static final SourceSection<PciConfig> SECTION = new SourceSection<>("pci", DEFAULT, PciConfig::read);

    static PciConfig read(YamlNode n) {
        n.object("deviceClassWhitelist", "deviceLabelFields");
        return new PciConfig(
                Checks.matchingOrWarn(n.child("deviceClassWhitelist"), DEFAULT.deviceClassWhitelist(),
                        java.util.regex.Pattern.compile("[0-9a-fA-F]{1,4}"), "a PCI class prefix of 1 to 4 hex digits"),
                Checks.knownOrDefault(n.child("deviceLabelFields"), DEFAULT.deviceLabelFields(), FIELDS));
    }
}
