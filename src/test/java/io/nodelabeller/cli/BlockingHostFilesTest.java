package io.nodelabeller.cli;

import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FIFO where a feature file should be (opening one blocks until a writer comes) used to hang {@code print} for
 * ever. On a copy of the DGX A100 tree with FIFOs in place of the files each source starts with, {@code print}
 * finishes, names each FIFO in a warning, and prints every label that does not depend on them. The timeout only
 * turns a hang into a failure.
 */
class BlockingHostFilesTest {

    static final List<String> FIFOS = List.of("proc/cpuinfo", "etc/os-release", "sys/bus/pci/devices/0000:07:00.0/vendor",
            "proc/modules", "sys/devices/virtual/dmi/id/product_name", "proc/config.gz");

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void printFinishesWithFifosInPlaceOfHostFiles(@TempDir Path tmp) throws Exception {
        Path root = withFifos(tmp, FIFOS);
        List<String> warnings = new java.util.ArrayList<>();
        Cli.Result r = print(root, warnings);
        assertEquals(0, r.code(), r.err());
        Set<String> out = new TreeSet<>(List.of(r.out().split("\n")));
        // untouched sources still label: the other GPUs, NICs, storage, NUMA, USB, the kernel (its config from
        // /boot, the next place after /proc/config.gz)
        for (String label : List.of("pci-0302_10de.present", "network-sriov.capable", "storage-nonrotationaldisk", "memory-numa",
                "usb-ef_046b_ffb0.present", "kernel-config.NO_HZ")) {
            assertTrue(out.contains("feature.node.kubernetes.io/" + label + "=true"), label + " in\n" + out);
        }
        assertTrue(out.contains("nvidia.com/gpu.present=true"), out.toString());
        assertTrue(out.contains("feature.node.kubernetes.io/kernel-version.major=5"), out.toString());
        // what the FIFOs held is left out
        assertFalse(out.stream().anyMatch(l -> l.startsWith("feature.node.kubernetes.io/cpu-cpuid.")), out.toString());
        assertFalse(out.stream().anyMatch(l -> l.startsWith("feature.node.kubernetes.io/system-os_release.")), out.toString());
        assertFalse(out.contains("feature.node.kubernetes.io/rdma.available=true"), "modules unread: " + out);
        for (String f : FIFOS) {
            assertTrue(warnings.stream().anyMatch(w -> w.contains(root.resolve(f).toString()) && w.contains("FIFO")),
                    f + " not named in " + warnings);
        }
    }

    /** The kernel source starts with osrelease: a FIFO there fails that source alone. */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFifoAtOsreleaseFailsOnlyTheKernelSource(@TempDir Path tmp) throws Exception {
        Path root = withFifos(tmp, List.of("proc/sys/kernel/osrelease"));
        List<String> warnings = new java.util.ArrayList<>();
        Cli.Result r = print(root, warnings);
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().contains("kernel-version."), r.out());
        assertTrue(r.out().contains("feature.node.kubernetes.io/cpu-cpuid.AVX2=true"), r.out());
        assertTrue(warnings.stream().anyMatch(w -> w.contains(root.resolve("proc/sys/kernel/osrelease").toString())), warnings.toString());
    }

    static Path withFifos(Path tmp, List<String> fifos) throws Exception {
        Path root = Hosts.copy("gpu-server", tmp.resolve("host"));
        for (String f : fifos) {
            Path p = root.resolve(f);
            Files.deleteIfExists(p);
            Process mkfifo = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
            assertEquals(0, mkfifo.waitFor());
        }
        return root;
    }

    /** {@code print} on {@code root} (no NVML), collecting what HostFs warns about. */
    static Cli.Result print(Path root, List<String> warnings) {
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(HostFs.class)) {
            Cli.Result r = Cli.run("print", "--no-timestamp", "--host-root", root.toString(), "--nvml-library",
                    "/nonexistent/libnvidia-ml.so.1");
            log.events().forEach(e -> warnings.add(e.getFormattedMessage()));
            return r;
        }
    }
}
