package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleReader;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code sources:} — one section per configurable source, NFD's keys and defaults. {@code custom} holds the
 * custom rules: those of {@code sources.custom} followed by those of the custom.d directory
 * ({@code core.customRulesDir}) when the config was loaded from a file or the defaults.
 */
public record SourcesConfig(PciConfig pci, UsbConfig usb, CpuConfig cpu, KernelConfig kernel, List<Rule> custom) {

    public static final SourcesConfig DEFAULT = new SourcesConfig(PciConfig.DEFAULT, UsbConfig.DEFAULT,
            CpuConfig.DEFAULT, KernelConfig.DEFAULT, List.of());

    public SourcesConfig {
        custom = List.copyOf(custom);
    }

    static SourcesConfig read(YamlNode n) {
        n.object("pci", "usb", "cpu", "kernel", "local", "custom");
        // NFD's local source has no options: "local: {}" (or null) is all there is
        YamlNode local = n.child("local");
        if (!local.isMissing() && !local.json().isObject()) {
            local.problem("expected an empty mapping ({}), sources.local has no options");
        } else {
            local.entries().keySet().forEach(k -> local.child(k).problem("unknown key (sources.local has no options)"));
        }
        return new SourcesConfig(
                n.child("pci").isMissing() ? PciConfig.DEFAULT : PciConfig.read(n.child("pci")),
                n.child("usb").isMissing() ? UsbConfig.DEFAULT : UsbConfig.read(n.child("usb")),
                n.child("cpu").isMissing() ? CpuConfig.DEFAULT : CpuConfig.read(n.child("cpu")),
                n.child("kernel").isMissing() ? KernelConfig.DEFAULT : KernelConfig.read(n.child("kernel")),
                RuleReader.readList(n.child("custom")));
    }

    /** These sources with {@code more} rules run after the current ones (custom.d files). */
    public SourcesConfig withMoreRules(List<Rule> more) {
        List<Rule> all = new ArrayList<>(custom);
        all.addAll(more);
        return new SourcesConfig(pci, usb, cpu, kernel, all);
    }
}
