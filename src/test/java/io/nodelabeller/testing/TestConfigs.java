package io.nodelabeller.testing;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.source.pci.PciConfig;
import io.nodelabeller.source.usb.UsbConfig;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A source's settings as the config loader reads them from a file, so that values go through the same checks and
 * NFD's resolution (unknown device label fields ignored, none known means the default, NFD's order).
 */
public final class TestConfigs {

    private TestConfigs() {
    }

    public static PciConfig pci(List<String> classWhitelist, List<String> labelFields) {
        return devices(PciConfig.SECTION, classWhitelist, labelFields);
    }

    public static UsbConfig usb(List<String> classWhitelist, List<String> labelFields) {
        return devices(UsbConfig.SECTION, classWhitelist, labelFields);
    }

    private static <T> T devices(SourceSection<T> section, List<String> classWhitelist, List<String> labelFields) {
        String yaml = "sources:\n  " + section.name() + ":\n    deviceClassWhitelist: " + quoted(classWhitelist)
                + "\n    deviceLabelFields: " + quoted(labelFields) + "\n";
        try {
            return Catalog.configLoader().parse("test.yaml", yaml).sources().get(section);
        } catch (ConfigException e) {
            throw new AssertionError(e.problems().toString(), e);
        }
    }

    private static String quoted(List<String> values) {
        return values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(", ", "[", "]"));
    }
}
