package io.nodelabeller.source;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Snapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class DiscoveryTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(Discovery.class);

    @BeforeEach
    void capture() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void release() {
        logger.detachAppender(log);
    }

    /** What the scripted source does next: "ok", "warn", "throw" or "partial". */
    private final AtomicReference<String> mode = new AtomicReference<>("ok");

    private final Source scripted = new Source() {
        @Override
        public Features discover(HostFs host, Warnings warnings) throws Exception {
            switch (mode.get()) {
                case "throw" -> throw new java.io.IOException("disk gone");
                case "partial" -> throw new SourceFailure("backend down",
                        Features.builder("s").attribute("status", "state", "unavailable").build());
                case "warn" -> warnings.warn("one device skipped");
                default -> { }
            }
            return Features.builder("s").attribute("status", "state", "ok").build();
        }
    };

    private final Source other = new Source() {
        @Override
        public Features discover(HostFs host, Warnings warnings) {
            return Features.builder("other").flags("f", List.of("x")).build();
        }
    };

    private final Discovery discovery = new Discovery(new HostFs(Path.of("/nonexistent")), inOrder("s", scripted, "other", other));

    /** WARN and INFO lines logged since the last call, as "LEVEL message". */
    private List<String> logged() {
        List<String> out = log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
                .map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
        log.list.clear();
        return out;
    }

    @Test
    void aFailingSourceCostsOnlyItsOwnFeatures() {
        mode.set("throw");
        Snapshot s = discovery.discover();
        assertEquals("disk gone", s.statuses().get("s").error());
        assertNull(s.features().attribute("s.status", "state"));
        assertEquals(List.of("x"), List.copyOf(s.features().flags("other.f")));
        assertEquals(java.util.Set.of("s"), s.failedSources());
    }

    @Test
    void aSourceFailureKeepsTheFeaturesThatSayWhy() {
        mode.set("partial");
        Snapshot s = discovery.discover();
        assertEquals("backend down", s.statuses().get("s").error());
        assertEquals("unavailable", s.features().attribute("s.status", "state"));
        assertEquals(java.util.Set.of("s"), s.failedSources());
    }

    @Test
    void problemsAreLoggedWhenTheyStartNotEveryCycle() {
        mode.set("throw");
        discovery.discover();
        assertEquals(List.of("WARN source s: failed, its labels are left out of this discovery (earlier ones are kept"
                + " for a while): disk gone"), logged());
        discovery.discover();
        discovery.discover();
        assertEquals(List.of(), logged(), "the same failure again is not repeated");

        mode.set("warn");
        discovery.discover();
        assertEquals(List.of("WARN source s: one device skipped", "INFO source s: discovers again"), logged());
        discovery.discover();
        assertEquals(List.of(), logged());

        mode.set("ok");
        discovery.discover();
        mode.set("warn");
        discovery.discover();
        assertEquals(List.of("WARN source s: one device skipped"), logged(), "a problem that comes back is logged again");
    }

    /**
     * A source blocked in the kernel (a sysfs attribute of a wedged driver, a FIFO opened before the check) ignores
     * interrupts: its run is given up at the deadline, the other sources are published, and it is not started again
     * while its thread is still blocked. The thread is a daemon thread, so it cannot hold the process's exit.
     */
    private static Map<String, Source> inOrder(String first, Source a, String second, Source b) {
        Map<String, Source> out = new java.util.LinkedHashMap<>();
        out.put(first, a);
        out.put(second, b);
        return out;
    }

    @Test
    void aBlockedSourceFailsAloneAtItsDeadlineAndIsNotStartedTwice() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger starts = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Thread> blockedThread = new java.util.concurrent.atomic.AtomicReference<>();
        Source blocking = new Source() {
            @Override
            public Features discover(HostFs host, Warnings warnings) {
                starts.incrementAndGet();
                blockedThread.set(Thread.currentThread());
                warnings.warn("reading a file that blocks");
                while (true) { // like an uninterruptible open(): interrupts do not end it
                    try {
                        if (release.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
                            break;
                        }
                    } catch (InterruptedException ignored) {
                        // keep blocking
                    }
                }
                return Features.builder("stuck").flags("f", List.of("late")).build();
            }
        };
        Discovery d = new Discovery(new HostFs(Path.of("/nonexistent")), inOrder("stuck", blocking, "other", other), java.time.Duration.ofMillis(200));

        Snapshot first = d.discover();
        assertEquals(java.util.Set.of("x"), first.features().flags("other.f"), "the other source is published");
        String error = first.statuses().get("stuck").error();
        org.junit.jupiter.api.Assertions.assertTrue(error.contains("did not finish within its 200ms deadline"), error);
        assertEquals(List.of("reading a file that blocks"), first.statuses().get("stuck").warnings(), "warnings before the block are kept");
        org.junit.jupiter.api.Assertions.assertTrue(blockedThread.get().isDaemon(), "a blocked source must not hold the exit");

        Snapshot second = d.discover();
        org.junit.jupiter.api.Assertions.assertTrue(second.statuses().get("stuck").error().contains("still blocked"),
                second.statuses().get("stuck").error());
        assertEquals(1, starts.get(), "not started again while blocked");
        assertEquals(java.util.Set.of("x"), second.features().flags("other.f"));

        release.countDown();
        blockedThread.get().join(5000);
        Snapshot third = d.discover();
        assertNull(third.statuses().get("stuck").error());
        assertEquals(java.util.Set.of("late"), third.features().flags("stuck.f"));
        assertEquals(2, starts.get());
    }

    /** A source that counts its runs, each after its gate opens (a gate of 0 is open). */
    private static final class Counting implements Source {
        final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.CountDownLatch gate;

        Counting(int gate) {
            this.gate = new java.util.concurrent.CountDownLatch(gate);
        }

        @Override
        public Features discover(HostFs host, Warnings warnings) throws Exception {
            gate.await();
            return Features.builder("c").attribute("run", "n", Integer.toString(runs.incrementAndGet())).build();
        }
    }

    @Test
    void anEarlyDiscoveryIsWhatTheNextDiscoverReturnsAndRunsTheSourcesOnce() {
        Counting counting = new Counting(1);
        Discovery d = new Discovery(new HostFs(Path.of("/nonexistent")), inOrder("c", counting, "other", other));
        d.startEarly();
        counting.gate.countDown(); // the early discovery may now read the host
        Snapshot first = d.discover();
        assertEquals("1", first.features().attribute("c.run", "n"));
        assertEquals(java.util.Set.of("x"), first.features().flags("other.f"));
        assertEquals(1, counting.runs.get(), "the early discovery was taken, not repeated");

        assertEquals("2", d.discover().features().attribute("c.run", "n"), "later discoveries run the sources again");
    }

    @Test
    void aReconfiguredDiscoveryDropsTheEarlyOneThatRanTheOldSources() {
        Counting counting = new Counting(0);
        Discovery d = new Discovery(new HostFs(Path.of("/nonexistent")), Map.of("c", counting));

        d.startEarly();
        d.reconfigure(Map.of("other", other), Discovery.DEFAULT_TIMEOUT);
        Snapshot snapshot = d.discover();
        assertEquals(java.util.Set.of("x"), snapshot.features().flags("other.f"));
        assertNull(snapshot.features().attribute("c.run", "n"), "nothing of the old sources");
    }

    @Test
    void stoppingAbandonsAnEarlyDiscovery() {
        Counting counting = new Counting(1);
        Discovery d = new Discovery(new HostFs(Path.of("/nonexistent")), inOrder("c", counting, "other", other));
        d.startEarly();
        d.stop();
        counting.gate.countDown(); // the abandoned discovery may finish: discover must not take it
        org.junit.jupiter.api.Assertions.assertThrows(Discovery.Stopped.class, d::discover);
    }
}
