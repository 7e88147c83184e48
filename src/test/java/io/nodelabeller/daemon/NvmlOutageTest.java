package io.nodelabeller.daemon;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.FakeNvml;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A driver reload or upgrade makes NVML fail on a node whose GPUs are still on the PCI bus: the GPU labels
 * workloads select on must not vanish at the next cycle. They are kept for staleAfter cycles like any failed
 * source's (never removed on uncertainty), gpu.present (from PCI) stays throughout, and they come back when NVML answers again.
 */
class NvmlOutageTest {

    @TempDir
    Path tmp;

    @Test
    void gpuLabelsSurviveAShortNvmlOutage() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        FakeNvml healthy = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb());
        Path lib = healthy.install(tmp.resolve("lib"));
        Cycle cycle = pciAndNvidiaCycle(Hosts.root("gpu-server"), lib, 3);
        Fakes.RecordingPublisher out = (Fakes.RecordingPublisher) cycle.publishers().get(0);

        cycle.run();
        Map<String, String> before = out.last();
        assertEquals("NVIDIA-A100-SXM4-80GB", before.get("nvidia.com/gpu.product"));

        FakeNvml.nvml().rc("nvmlInit_v2", 9).gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        for (int i = 1; i <= 3; i++) {
            cycle.run();
            assertEquals(before, out.last(), "outage cycle " + i + " keeps every label");
        }
        cycle.run();
        assertNull(out.last().get("nvidia.com/gpu.product"), "after staleAfter failed cycles they go");
        assertEquals("true", out.last().get("nvidia.com/gpu.present"));
        assertFalse(out.last().containsKey("nvidia.com/cuda.driver-version.full"));

        healthy.writeConfig(lib.getParent());
        cycle.run();
        assertEquals(before, out.last(), "NVML answers again: everything is back");
    }

    /**
     * A driver upgrade under a running agent (no Operator gate, or a host-installed driver): the module is unloaded
     * (nvmlInit_v2 answers 9), the new one loaded while the container still holds the old library (18, "Driver/library
     * version mismatch", until a new container is created: the runtime injects the library at creation). The labels
     * stay through both; at 18 the cycle publishes nothing and ends the process, and the next process (the restarted
     * container, its retention seeded from the node as {@code run} does) labels the new driver without removing any
     * label on the way.
     */
    @Test
    void aDriverUpgradeKeepsTheLabelsAndTheNextContainerTakesTheNewDriver() {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        Path lib = FakeNvml.nvml().driver("570.133.20").gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Cycle cycle = pciAndNvidiaCycle(Hosts.root("gpu-server"), lib, 3);
        Fakes.RecordingPublisher out = (Fakes.RecordingPublisher) cycle.publishers().get(0);
        assertNull(cycle.run().fatal());
        Map<String, String> before = out.last();
        assertEquals("570.133.20", before.get("nvidia.com/cuda.driver-version.full"));

        FakeNvml.nvml().rc("nvmlInit_v2", 9).gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        Cycle.Outcome unloaded = cycle.run();
        assertNull(unloaded.fatal(), "a driver that is not loaded is waited for");
        assertEquals(before, out.last());

        FakeNvml.nvml().rc("nvmlInit_v2", 18).gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        int published = out.published.size();
        Cycle.Outcome mismatch = cycle.run();
        assertTrue(mismatch.fatal() != null && mismatch.fatal().contains("Driver/library version mismatch")
                && mismatch.fatal().contains("exiting so that a new container gets the new driver's library"),
                String.valueOf(mismatch.fatal()));
        assertEquals(published, out.published.size(), "nothing published: the node keeps its labels");

        // the new container: the new driver's library, the node's labels as the previous process left them
        FakeNvml.nvml().driver("580.95.05").cuda(13000).gpus(8, FakeNvml.a100_80gb()).writeConfig(lib.getParent());
        Cycle next = pciAndNvidiaCycle(Hosts.root("gpu-server"), lib, 3, before);
        Fakes.RecordingPublisher nextOut = (Fakes.RecordingPublisher) next.publishers().get(0);
        assertNull(next.run().fatal());
        assertEquals("580.95.05", nextOut.last().get("nvidia.com/cuda.driver-version.full"));
        java.util.Set<String> lost = new java.util.TreeSet<>(before.keySet());
        lost.removeAll(nextOut.last().keySet());
        assertEquals(java.util.Set.of(), lost, "no label removed across the upgrade");
    }

    /**
     * gpu.mode is computed from NVML and from the PCI classes: a PCI scan that fails (its directory unreadable for a
     * while) must not turn compute into unknown; the label keeps its value for staleAfter cycles like any other.
     */
    @Test
    void gpuModeKeepsItsValueWhileThePciScanFails() throws Exception {
        assumeTrue(Files.exists(FakeNvml.built(FakeNvml.Variant.FULL)), "fake NVML not built (gcc missing)");
        Path lib = FakeNvml.nvml().gpus(8, FakeNvml.a100_80gb()).install(tmp.resolve("lib"));
        Path host = Hosts.copy("gpu-server", tmp.resolve("host"));
        Cycle cycle = pciAndNvidiaCycle(host, lib, 2);
        Fakes.RecordingPublisher out = (Fakes.RecordingPublisher) cycle.publishers().get(0);
        cycle.run();
        assertEquals("compute", out.last().get("nvidia.com/gpu.mode"));

        Path devices = host.resolve("sys/bus/pci/devices");
        // the scan fails: the devices directory cannot be listed (a directory that is simply missing beside a visible
        // sysfs is a node without a PCI bus, no failure)
        Files.move(devices, host.resolve("sys/bus/pci/devices.away"));
        Files.writeString(devices, "");
        for (int i = 1; i <= 2; i++) {
            cycle.run();
            assertEquals("compute", out.last().get("nvidia.com/gpu.mode"), "PCI scan failed, cycle " + i);
            assertEquals("true", out.last().get("nvidia.com/gpu.present"));
        }
        cycle.run();
        assertEquals("unknown", out.last().get("nvidia.com/gpu.mode"), "beyond staleAfter NVML's view alone is left");
        Files.delete(devices);
        Files.move(host.resolve("sys/bus/pci/devices.away"), devices);
        cycle.run();
        assertEquals("compute", out.last().get("nvidia.com/gpu.mode"));
    }

    /** The pci and nvidia sources on {@code host} with NVML from {@code lib}, publishing to one recorder. */
    private static Cycle pciAndNvidiaCycle(Path host, Path lib, int staleAfter) {
        return pciAndNvidiaCycle(host, lib, staleAfter, Map.of());
    }

    /** The same, started on a node that carries {@code onNode} (a restart: the retention seeded as {@code run} does). */
    private static Cycle pciAndNvidiaCycle(Path host, Path lib, int staleAfter, Map<String, String> onNode) {
        Options options = new Options(host, lib.toString(), null, true, null);
        List<String> sources = List.of("pci", "nvidia");
        return new Cycle(
                new Discovery(new HostFs(host), Catalog.sources(Config.DEFAULT, options, sources)),
                new Labelling(Catalog.labelers(Config.DEFAULT, options, sources), Catalog.labelValidity(Config.DEFAULT.core()), null),
                Retention.initial(staleAfter).withPrevious(io.nodelabeller.label.LabelSet.Kind.LABEL, onNode),
                List.of(new Fakes.RecordingPublisher("node")), new Metrics(),
                Clock.systemUTC());
    }
}
