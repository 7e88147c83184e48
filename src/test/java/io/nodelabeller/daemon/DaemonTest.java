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
                Retention.initial(3, List.of("kernel")), List.of(p), new Metrics(), Clock.systemUTC());
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
