package io.nodelabeller.source.nvidia;

import io.nodelabeller.nvml.NvmlDevice.Attributes;
import io.nodelabeller.nvml.NvmlDevice.GpuInstanceProfile;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * MIG profile names as NVIDIA's tools print them (NVIDIA's MIG user guide): {@code <g>g.<GB>gb} when the compute
 * instance uses the whole GPU instance, else {@code <c>c.<g>g.<GB>gb}, plus the GPU-instance profile's attribute
 * suffix ({@code +me}, {@code +me.all}, {@code +gfx}, {@code -me}).
 *
 * <p>NVML has no call that names a MIG device's GPU-instance profile directly with the symbols we bind, so the
 * profile is found among {@code nvmlDeviceGetGpuInstanceProfileInfo} answers: same slice count and memory as
 * the device's attributes, and the same engine counts (the {@code +me} variants differ from the plain ones only in
 * their decoder/JPEG/OFA engines). When two profiles still match, the lowest profile index (the plain one) wins.
 */
final class MigProfiles {

    private static final double MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    private MigProfiles() {
    }

    /** The profile name of a MIG device with these attributes on a GPU of {@code parentTotalBytes}. */
    static String name(Attributes a, long parentTotalBytes, String suffix) {
        long gb = memoryGb(parentTotalBytes, a.memorySizeMB());
        int g = a.gpuInstanceSliceCount();
        int c = a.computeInstanceSliceCount();
        String base = c == g ? g + "g." + gb + "gb" : c + "c." + g + "g." + gb + "gb";
        return base + suffix;
    }

    /**
     * The GB figure of a profile name (go-nvlib's rule): the MIG memory's share of the GPU's memory rounded up to
     * eighths, times the GPU's memory in whole GiB rounded up, rounded half away from zero.
     */
    static long memoryGb(long parentTotalBytes, long migMemoryMiB) {
        double fraction = migMemoryMiB * MIB / parentTotalBytes;
        fraction = Math.ceil(fraction * 8) / 8;
        long totalGb = Long.divideUnsigned(parentTotalBytes + GIB - 1, GIB);
        return Math.round(fraction * totalGb);
    }

    /** The suffix of GPU-instance profile index {@code index} ({@code NVML_GPU_INSTANCE_PROFILE_*}). */
    static String suffix(int index) {
        return switch (index) {
            case 0x7, 0x8 -> "+me";           // 1_SLICE_REV1, 2_SLICE_REV1: media extensions
            case 0xF, 0x10 -> "+me.all";      // *_ALL_ME
            case 0xA, 0xB, 0xC, 0x11 -> "+gfx"; // *_GFX
            case 0xD, 0xE -> "-me";           // *_NO_ME
            default -> "";                    // plain and REV2 (1g with double memory) profiles
        };
    }

    /** The GPU-instance profile a MIG device with attributes {@code a} was created from, if it can be told. */
    static Optional<GpuInstanceProfile> profileOf(List<GpuInstanceProfile> profiles, Attributes a) {
        List<GpuInstanceProfile> sameSize = profiles.stream()
                .filter(p -> p.sliceCount() == a.gpuInstanceSliceCount() && p.memorySizeMB() == a.memorySizeMB())
                .sorted(Comparator.comparingInt(GpuInstanceProfile::index))
                .toList();
        return sameSize.stream()
                .filter(p -> p.copyEngineCount() == a.sharedCopyEngineCount() && p.decoderCount() == a.sharedDecoderCount()
                        && p.encoderCount() == a.sharedEncoderCount() && p.jpegCount() == a.sharedJpegCount()
                        && p.ofaCount() == a.sharedOfaCount())
                .findFirst()
                .or(() -> sameSize.stream().findFirst());
    }
}
