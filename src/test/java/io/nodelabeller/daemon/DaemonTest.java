package io.nodelabeller.daemon;

import io.nodelabeller.daemon.Fakes.FakeSource;
import io.nodelabeller.daemon.Fakes.RecordingPublisher;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.publish.PublishException;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DaemonTest {

    /** Blocks inside its first publish until released. */
    static final class SlowPublisher extends RecordingPublisher {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean finished = new AtomicBoolean();
        final AtomicBoolean interrupted = new AtomicBoolean();

        SlowPublisher() {
            super("slow");
        }

        @Override
        public boolean publish(LabelSet desired) throws PublishException {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                interrupted.set(true);
                Thread.currentThread().interrupt();
            }
            boolean written = super.publish(desired);
            finished.set(true);
            return written;
        }
    }

    private static Cycle cycle(RecordingPublisher p) {
        return new Cycle(Fakes.discovery(new FakeSource("kernel")), Fakes.labelling("kernel"),
                Retention.initial(3), List.of(p), new Metrics(), Clock.systemUTC());
    }

    /**
     * SIGTERM while a source is blocked in a host read (a 10-minute deadline here, longer than any grace period):
     * stopping does not wait for it, and the abandoned cycle publishes nothing. The timeout only turns a hang into
     * a failure.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void stopDoesNotWaitForASourceBlockedInDiscovery() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        io.nodelabeller.source.Source blocked = new io.nodelabeller.source.Source() {
            @Override
            public io.nodelabeller.feature.Features discover(io.nodelabeller.source.HostFs host, Warnings warnings) {
                entered.countDown();
                while (never.getCount() > 0) { // like an uninterruptible open()
                    try {
                        never.await();
                    } catch (InterruptedException ignored) {
                        // keep blocking
                    }
                }
                return io.nodelabeller.feature.Features.empty();
            }
        };
        RecordingPublisher p = new RecordingPublisher("node");
        Cycle cycle = new Cycle(new io.nodelabeller.source.Discovery(new io.nodelabeller.source.HostFs(java.nio.file.Path.of("/nonexistent")),
                java.util.Map.of("kernel", blocked), Duration.ofMinutes(10)), Fakes.labelling("kernel"), Retention.initial(3),
                List.of(p), new Metrics(), Clock.systemUTC());
        Daemon daemon = Daemon.start(cycle, new Metrics(), Duration.ofHours(1), EndpointsTest.loopback());
        try {
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the first cycle starts at once");
            daemon.close(); // returns although the source never comes back
            assertTrue(daemon.isClosed());
            assertEquals(0, p.published.size(), "a stopped discovery publishes nothing");
        } finally {
            never.countDown();
        }
    }

    @Test
    void notReadyWhileTheFirstPublishIsInFlightAndStopWaitsForIt() throws Exception {
        SlowPublisher p = new SlowPublisher();
        Cycle cycle = cycle(p);
        Daemon daemon = Daemon.start(cycle, new Metrics(), Duration.ofHours(1), EndpointsTest.loopback());
        AtomicBoolean finishedWhenStopped = new AtomicBoolean();
        Thread stopper = new Thread(() -> {
            daemon.close();
            finishedWhenStopped.set(p.finished.get());
        });
        try {
            assertTrue(p.entered.await(60, TimeUnit.SECONDS), "the first cycle starts at once");
            assertEquals(200, EndpointsTest.get(daemon.port(), "/healthz").statusCode());
            assertEquals(503, EndpointsTest.get(daemon.port(), "/readyz").statusCode());
            stopper.start(); // SIGTERM while publishing
            assertTrue(Fakes.awaitParked(stopper), "close() returned while the publish was still running");
        } finally {
            p.release.countDown();
        }
        stopper.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(stopper.isAlive());
        assertTrue(finishedWhenStopped.get(), "stop returned only after the publish had finished");
        assertFalse(p.interrupted.get(), "the publish was not interrupted");
        assertTrue(daemon.isClosed());
        daemon.awaitStopped(); // returns at once once stopped
        assertEquals(1, p.published.size());
    }

    @Test
    void readyOnceAPublishSucceeded() throws Exception {
        RecordingPublisher p = new RecordingPublisher("p");
        Cycle cycle = cycle(p);
        try (Daemon daemon = Daemon.start(cycle, new Metrics(), Duration.ofHours(1), EndpointsTest.loopback())) {
            // wait (not a timed assertion): the first cycle runs on the scheduler's thread
            for (int i = 0; i < 600 && cycle.lastSuccess().isEmpty(); i++) {
                Thread.sleep(100);
            }
            assertTrue(cycle.lastSuccess().isPresent());
            assertEquals(200, EndpointsTest.get(daemon.port(), "/readyz").statusCode());
        }
    }

    @Test
    void zeroIntervalRunsOneCycleAndStaysReady() throws Exception {
        RecordingPublisher p = new RecordingPublisher("p");
        Cycle cycle = cycle(p);
        try (Daemon daemon = Daemon.start(cycle, new Metrics(), Duration.ZERO, EndpointsTest.loopback())) {
            for (int i = 0; i < 600 && cycle.lastSuccess().isEmpty(); i++) {
                Thread.sleep(100);
            }
            assertEquals(200, EndpointsTest.get(daemon.port(), "/readyz").statusCode());
        }
        assertEquals(1, p.published.size());
    }
}
