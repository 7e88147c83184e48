package io.nodelabeller.daemon;

import io.nodelabeller.daemon.Fakes.FakeSource;
import io.nodelabeller.daemon.Fakes.ManualClock;
import io.nodelabeller.daemon.Fakes.RecordingPublisher;
import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** flags.failOnInitError in the cycle (the device plugin's meaning) and the node_labeller_nvml_up gauge. */
class NvmlStateTest {

    /** The nvidia source's answer: {@code nvidia.nvml.status} ok, or unavailable with NVML's error. */
    static final class NvidiaSource extends Fakes.NamedSource {
        volatile boolean up;

        NvidiaSource() {
            super("nvidia");
        }

        @Override
        public Features discover(HostFs host, Warnings warnings) {
            Features.Builder b = Features.builder("nvidia");
            if (up) {
                return b.attribute("nvml", "status", "ok").attribute("value", "v", "1").build();
            }
            return b.attribute("nvml", "status", "unavailable").attribute("nvml", "error", "Driver Not Loaded")
                    .attribute("nvml", "errorCode", "9").build();
        }
    }

    /** PCI devices: an NVIDIA 3D controller (10de, 0302) when {@code nvidiaGpu}, always an ASPEED VGA (1a03, 0300). */
    static final class PciSource extends Fakes.NamedSource {
        final boolean nvidiaGpu;
        volatile boolean fail;

        PciSource(boolean nvidiaGpu) {
            super("pci");
            this.nvidiaGpu = nvidiaGpu;
        }

        @Override
        public Features discover(HostFs host, Warnings warnings) throws Exception {
            if (fail) {
                throw new java.io.IOException("/sys/bus/pci/devices: not readable");
            }
            Features.Builder b = Features.builder("pci")
                    .instance("device", Map.of("class", "0300", "vendor", "1a03", "device", "2000"))
                    .attribute("value", "v", "1");
            if (nvidiaGpu) {
                b.instance("device", Map.of("class", "0302", "vendor", "10de", "device", "20b2"));
            }
            return b.build();
        }
    }

    private final FakeSource kernel = new FakeSource("kernel");
    private final RecordingPublisher node = new RecordingPublisher("node");
    private final Metrics metrics = new Metrics();

    private Cycle cycle(boolean failOnInitError, Fakes.NamedSource... sources) {
        List<Fakes.NamedSource> all = new java.util.ArrayList<>(List.of(kernel));
        all.addAll(List.of(sources));
        return new Cycle(Fakes.discovery(all.toArray(Fakes.NamedSource[]::new)), Fakes.labelling("kernel", "pci", "nvidia"),
                Retention.initial(3), List.of(node), metrics, new ManualClock(),
                failOnInitError);
    }

    private Optional<Double> nvmlUp() {
        for (MetricSnapshot s : metrics.registry().scrape()) {
            if (s.getMetadata().getName().equals("node_labeller_nvml_up")) {
                return Optional.of(((GaugeSnapshot) s).getDataPoints().get(0).getValue());
            }
        }
        return Optional.empty();
    }

    @Test
    void withFailOnInitErrorANodeWithAnNvidiaGpuAndNoNvmlPublishesNothingAndIsFatal() {
        NvidiaSource nvidia = new NvidiaSource();
        Cycle cycle = cycle(true, new PciSource(true), nvidia);
        Cycle.Outcome outcome = cycle.run();
        assertFalse(outcome.ok());
        assertEquals("NVML cannot be initialised (Driver Not Loaded) on a node with an NVIDIA GPU; "
                + "flags.failOnInitError is true: nothing published", outcome.fatal());
        assertTrue(node.published.isEmpty(), "nothing published: " + node.published);
        assertEquals(Optional.of(0.0), nvmlUp());

        nvidia.up = true; // the driver came up: the next cycle is an ordinary one
        Cycle.Outcome next = cycle.run();
        assertTrue(next.ok(), next.failures().toString());
        assertNull(next.fatal());
        assertEquals("1", node.last().get(Fakes.key("nvidia")));
        assertEquals(Optional.of(1.0), nvmlUp());
    }

    @Test
    void withoutFailOnInitErrorEverythingElseIsPublished() {
        Cycle.Outcome outcome = cycle(false, new PciSource(true), new NvidiaSource()).run();
        assertTrue(outcome.ok(), outcome.failures().toString());
        assertNull(outcome.fatal());
        assertEquals(Map.of(Fakes.key("kernel"), "1", Fakes.key("pci"), "1"), node.last());
        assertEquals(Optional.of(0.0), nvmlUp(), "still exported as down");
    }

    @Test
    void aNodeWithoutNvidiaGpuIsSpared() {
        Cycle.Outcome outcome = cycle(true, new PciSource(false), new NvidiaSource()).run();
        assertTrue(outcome.ok(), outcome.failures().toString());
        assertNull(outcome.fatal());
        assertEquals(Map.of(Fakes.key("kernel"), "1", Fakes.key("pci"), "1"), node.last());
    }

    @Test
    void withoutAPciScanNvmlFailingCountsAsInGfd() {
        PciSource pci = new PciSource(false);
        pci.fail = true;
        assertEquals("NVML cannot be initialised (Driver Not Loaded) and no PCI scan tells whether the node has an "
                + "NVIDIA GPU; flags.failOnInitError is true: nothing published",
                cycle(true, pci, new NvidiaSource()).run().fatal());
        assertNotNull(cycle(true, new NvidiaSource()).run().fatal(), "pci source off: the same");
        assertTrue(node.published.isEmpty(), node.published.toString());
    }

    @Test
    void noGaugeWhereTheNvidiaSourceDoesNotRun() {
        Cycle.Outcome outcome = cycle(true, new PciSource(true)).run();
        assertTrue(outcome.ok(), outcome.failures().toString());
        assertEquals(Optional.empty(), nvmlUp());
    }
}
