package io.nodelabeller.feature;

/**
 * What counts as an NVIDIA GPU on the PCI bus: vendor {@code 10de}, class {@code 0300} (VGA) or
 * {@code 0302} (3D controller). One definition for the presence label, the NVML state and the nvidia source.
 */
public final class NvidiaPci {

    public static final String VENDOR = "10de";
    public static final String PCI_DEVICE = "pci.device";

    private NvidiaPci() {
    }

    /** {@code cls} is a GPU class, given as 4 hex digits as {@code pci.device} has it. */
    public static boolean isGpuClass(String cls) {
        return "0300".equalsIgnoreCase(cls) || "0302".equalsIgnoreCase(cls);
    }

    /** Vendor and class (4 hex digits, no {@code 0x}) are those of an NVIDIA GPU. */
    public static boolean isGpu(String vendor, String cls) {
        return VENDOR.equalsIgnoreCase(vendor) && isGpuClass(cls);
    }

    /** Some {@code pci.device} instance of {@code features} is an NVIDIA GPU. */
    public static boolean anyIn(Features features) {
        return features.instances(PCI_DEVICE).stream().anyMatch(d -> isGpu(d.get("vendor"), d.get("class")));
    }
}
