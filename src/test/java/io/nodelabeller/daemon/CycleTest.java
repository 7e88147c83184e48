package io.nodelabeller.daemon;

import io.nodelabeller.daemon.Fakes.FakeSource;
import io.nodelabeller.daemon.Fakes.ManualClock;
import io.nodelabeller.daemon.Fakes.RecordingPublisher;
import io.nodelabeller.publish.PublishException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CycleTest {

    private final FakeSource kernel = new FakeSource("kernel");
    private final FakeSource pci = new FakeSource("pci");
    private final ManualClock clock = new ManualClock();

    private Cycle cycle(int staleAfter, RecordingPublisher... publishers) {
        return new Cycle(Fakes.discovery(kernel, pci), Fakes.labelling("kernel", "pci"),
                Retention.initial(staleAfter), List.of(publishers), new Metrics(), clock);
    }

    @Test
    void everyPublisherGetsTheLabelsAndFailuresDoNotStopTheOthers() {
        RecordingPublisher a = new RecordingPublisher("a");
        RecordingPublisher b = new RecordingPublisher("b");
        RecordingPublisher c = new RecordingPublisher("c");
        a.failWith = new PublishException("server says no", 503, null);
        b.failWith = new IllegalStateException("bug in a publisher");
        Cycle cycle = cycle(3, a, b, c);

        Cycle.Outcome first = cycle.run();
        assertFalse(first.ok());
        assertEquals(2, first.failures().size(), first.failures().toString());
        assertTrue(first.failures().get(0).startsWith("a: server says no (HTTP 503)"), first.failures().toString());
        Map<String, String> expected = Map.of(Fakes.key("kernel"), "1", Fakes.key("pci"), "1");
        assertEquals(expected, c.last(), "c still published");
        assertEquals(expected, a.last(), "a was asked");
        assertTrue(cycle.lastSuccess().isEmpty());

        a.failWith = null;
        b.failWith = null;
        Cycle.Outcome second = cycle.run();
        assertTrue(second.ok(), second.failures().toString());
        assertEquals(clock.instant(), cycle.lastSuccess().orElseThrow());
    }

    @Test
    void readinessMeansASuccessfulPublishWithinTheWindow() {
        RecordingPublisher p = new RecordingPublisher("p");
        Cycle cycle = cycle(3, p);
        Duration window = Duration.ofMinutes(2);
        assertFalse(cycle.succeededWithin(window), "nothing published yet");
        cycle.run();
        assertTrue(cycle.succeededWithin(window));
        clock.advance(Duration.ofMinutes(1));
        p.failWith = new PublishException("timeout", 0, null);
        cycle.run();
        assertTrue(cycle.succeededWithin(window), "one failed cycle after a recent success");
        clock.advance(Duration.ofMinutes(1).plusSeconds(1));
        assertFalse(cycle.succeededWithin(window), "last success more than two minutes ago");
        p.failWith = null;
        cycle.run();
        assertTrue(cycle.succeededWithin(window));
    }

    @Test
    void aFailingSourceKeepsItsLabelsThroughTheCycle() {
        RecordingPublisher p = new RecordingPublisher("p");
        Cycle cycle = cycle(1, p);
        cycle.run();
        pci.fail = true;
        kernel.value.set("2");
        assertTrue(cycle.run().ok(), "a failed source is not a failed publish");
        assertEquals(Map.of(Fakes.key("kernel"), "2", Fakes.key("pci"), "1"), p.last());
        cycle.run();
        assertEquals(Map.of(Fakes.key("kernel"), "2"), p.last(), "staleAfter 1: gone on the second failed cycle");
        pci.fail = false;
        cycle.run();
        assertEquals(Map.of(Fakes.key("kernel"), "2", Fakes.key("pci"), "1"), p.last());
    }

    /**
     * A publisher that fails every cycle while the API server is away says so once when it starts and once when it
     * works again, not every cycle; a failure of another kind is a new line.
     */
    @Test
    void aPublishFailureIsLoggedWhenItStartsAndWhenItEnds() {
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(Cycle.class)) {
            RecordingPublisher p = new RecordingPublisher("node");
            Cycle cycle = cycle(5, p);
            cycle.run();
            p.failWith = new PublishException("gave up after 6 attempts: GET /api/v1/nodes/n: ConnectException", 0, null);
            for (int i = 0; i < 4; i++) {
                cycle.run();
            }
            p.failWith = new PublishException("forbidden", 403, null);
            cycle.run();
            cycle.run();
            p.failWith = null;
            cycle.run();
            cycle.run();
            List<String> lines = log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.INFO))
                    .map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
            assertEquals(List.of("WARN publishing to node failed, retrying every cycle: gave up after 6 attempts: GET "
                            + "/api/v1/nodes/n: ConnectException",
                    "WARN publishing to node failed, retrying every cycle: forbidden",
                    "INFO publishing to node works again"), lines);
        }
    }

    /** Kept labels are logged when what is kept changes, and once when nothing is kept any more; not every cycle. */
    @Test
    void keptLabelsAreLoggedWhenTheyChangeNotEveryCycle() {
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(Cycle.class)) {
            Cycle cycle = cycle(5, new RecordingPublisher("p"));
            cycle.run();
            pci.fail = true;
            for (int i = 0; i < 4; i++) {
                cycle.run(i % 2 == 0);
            }
            kernel.fail = true;
            cycle.run();
            cycle.run();
            pci.fail = false;
            kernel.fail = false;
            cycle.run();
            cycle.run();
            List<String> info = log.events().stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.INFO)
                    .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
            assertEquals(List.of("keeping 1 label(s) of failed source(s) [pci] from an earlier cycle",
                    "keeping 2 label(s) of failed source(s) [kernel, pci] from an earlier cycle",
                    "no label kept from an earlier cycle any more: their sources work again, or they went stale"), info);
        }
    }
}
