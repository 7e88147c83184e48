package io.nodelabeller.config;

/** {@code sources:} — one section per configurable source, NFD's keys and defaults. */
public record SourcesConfig(PciConfig pci, UsbConfig usb, CpuConfig cpu, KernelConfig kernel) {

    public static final SourcesConfig DEFAULT = new SourcesConfig(PciConfig.DEFAULT, UsbConfig.DEFAULT,
            CpuConfig.DEFAULT, KernelConfig.DEFAULT);

    static SourcesConfig read(Node n) {
        n.object("pci", "usb", "cpu", "kernel", "local", "custom");
        return new SourcesConfig(
                n.child("pci").isMissing() ? PciConfig.DEFAULT : PciConfig.read(n.child("pci")),
                n.child("usb").isMissing() ? UsbConfig.DEFAULT : UsbConfig.read(n.child("usb")),
                n.child("cpu").isMissing() ? CpuConfig.DEFAULT : CpuConfig.read(n.child("cpu")),
                n.child("kernel").isMissing() ? KernelConfig.DEFAULT : KernelConfig.read(n.child("kernel")));
    }
}
