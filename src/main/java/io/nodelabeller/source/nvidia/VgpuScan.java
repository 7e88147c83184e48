package io.nodelabeller.source.nvidia;

import io.nodelabeller.feature.NvidiaPci;
import io.nodelabeller.source.HostFs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * GFD's vGPU detection (k8s-device-plugin {@code internal/vgpu}), read from the PCI configuration space of every
 * NVIDIA device ({@code /sys/bus/pci/devices/<address>/config}, vendor 10de, any class), in address order. A device
 * is a vGPU when its capability list (PCI Local Bus spec: status bit 0x10, first pointer at 0x34; each capability an
 * id, a next pointer and, for the vendor-specific id 0x09, a length) holds a vendor-specific capability signed "VF" at
 * its bytes 3 and 4. Its records start at byte 5 (a type and a length each); record type 0 holds the host's vGPU
 * manager driver version (10 bytes) and branch (10 bytes), NUL-padded. That is what a VM with an NVIDIA vGPU sees; a
 * GPU passed through whole, or a vGPU host's physical GPU, carries no such capability.
 */
final class VgpuScan {

    /**
     * A conventional device's whole configuration space; a process without CAP_SYS_ADMIN reads only its first 64
     * bytes (drivers/pci/pci-sysfs.c), a PCI Express function has 4096.
     */
    static final int FULL = 256;
    private static final int STATUS = 0x06;
    private static final int STATUS_CAPABILITY_LIST = 0x10;
    private static final int CAPABILITY_LIST = 0x34;
    private static final int VENDOR_SPECIFIC = 0x09;
    private static final int RECORDS = 5;
    private static final int FIELD = 10;

    /** The configuration space cannot be read whole, or a vGPU's capability holds no driver record. */
    static final class ScanException extends Exception {
        private static final long serialVersionUID = 1L;

        ScanException(String message) {
            super(message);
        }
    }

    private VgpuScan() {
    }

    /** Every vGPU among the NVIDIA PCI devices of {@code host}. */
    static List<NvidiaFeatures.Vgpu> scan(HostFs host) throws ScanException {
        List<NvidiaFeatures.Vgpu> out = new ArrayList<>();
        for (String dev : host.listOrEmpty(NvidiaSource.PCI_DEVICES)) {
            String base = NvidiaSource.PCI_DEVICES + "/" + dev;
            if (!NvidiaPci.VENDOR.equals(NvidiaSource.sysfsId(host, base + "/vendor"))) {
                continue;
            }
            byte[] config = read(host, base + "/config");
            byte[] capability = vendorCapability(dev, config);
            if (capability != null && capability.length >= RECORDS && capability[3] == 'V' && capability[4] == 'F') {
                out.add(info(dev, capability));
            }
        }
        return out;
    }

    private static byte[] read(HostFs host, String path) throws ScanException {
        try (InputStream in = host.open(path)) {
            return in.readNBytes(4096);
        } catch (IOException e) {
            throw new ScanException(host.path(path) + ": " + HostFs.reason(e));
        }
    }

    /** The vendor-specific capability of {@code config}, or null when it has none. */
    static byte[] vendorCapability(String device, byte[] config) throws ScanException {
        if (config.length < FULL) {
            throw new ScanException(device + ": only " + config.length + " bytes of its PCI configuration space are"
                    + " readable (the kernel shows all of it to a process with CAP_SYS_ADMIN only)");
        }
        if ((config[STATUS] & STATUS_CAPABILITY_LIST) == 0) {
            return null;
        }
        boolean[] visited = new boolean[FULL];
        int pos = u8(config, CAPABILITY_LIST);
        while (pos != 0 && pos + 2 < FULL && !visited[pos]) {
            int id = u8(config, pos);
            if (id == 0xff) {
                break; // a broken chain
            }
            if (id == VENDOR_SPECIFIC) {
                int length = u8(config, pos + 2);
                if (pos + length > config.length) {
                    throw new ScanException(device + ": its vendor-specific capability runs past the configuration space");
                }
                return java.util.Arrays.copyOfRange(config, pos, pos + length);
            }
            visited[pos] = true;
            pos = u8(config, pos + 1);
        }
        return null;
    }

    /**
     * The host driver record (type 0) of a vGPU capability. Records are walked from byte 5, each a type, a length
     * (itself included) and data; one that is shorter than its own header, runs past the capability or (type 0) is too
     * short for both fields is malformed, as k8s-device-plugin's {@code internal/vgpu/vgpu_test.go} tables reject.
     */
    static NvidiaFeatures.Vgpu info(String device, byte[] capability) throws ScanException {
        int pos = RECORDS;
        while (pos < capability.length) {
            if (pos + 1 >= capability.length) {
                throw new ScanException(device + ": a vGPU capability record is cut short at byte " + pos);
            }
            int type = u8(capability, pos);
            int length = u8(capability, pos + 1);
            int least = type == 0 ? 2 + 2 * FIELD : 2;
            if (length < least || pos + length > capability.length) {
                throw new ScanException(device + ": vGPU capability record type " + type + " at byte " + pos
                        + " has length " + length + " (at least " + least + ", at most " + (capability.length - pos) + ")");
            }
            if (type == 0) {
                return new NvidiaFeatures.Vgpu(device, field(capability, pos + 2), field(capability, pos + 2 + FIELD));
            }
            pos += length;
        }
        throw new ScanException(device + ": no host driver record in its vGPU capability");
    }

    private static String field(byte[] b, int from) {
        return new String(b, from, FIELD, StandardCharsets.ISO_8859_1).replaceAll("^\u0000+|\u0000+$", "");
    }

    private static int u8(byte[] b, int i) {
        return b[i] & 0xff;
    }
}
