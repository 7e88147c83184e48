package io.nodelabeller.config;

/** {@code sources:} — one section per configurable source, NFD's keys and defaults. */
public record SourcesConfig(PciConfig pci, KernelConfig kernel) {

    public static final SourcesConfig DEFAULT = new SourcesConfig(PciConfig.DEFAULT, KernelConfig.DEFAULT);

    static SourcesConfig read(Node n) {
        n.object("pci", "kernel", "cpu", "usb", "local", "custom");
        return new SourcesConfig(
                n.child("pci").isMissing() ? PciConfig.DEFAULT : PciConfig.read(n.child("pci")),
                n.child("kernel").isMissing() ? KernelConfig.DEFAULT : KernelConfig.read(n.child("kernel")));
    }
}
