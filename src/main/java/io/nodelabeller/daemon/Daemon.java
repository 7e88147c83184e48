package io.nodelabeller.daemon;

import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code run}: the cycle on a schedule plus the HTTP endpoints. {@link #close()} stops scheduling, waits for an
 * in-flight cycle (so a publish is never cut in half), then stops the endpoints. Publishers belong to the caller.
 */
public final class Daemon implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    private final Endpoints endpoints;
    private final CycleScheduler scheduler;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private Daemon(Endpoints endpoints, CycleScheduler scheduler) {
        this.endpoints = endpoints;
        this.scheduler = scheduler;
    }

    /**
     * Serves the endpoints on {@code address} and starts cycling every {@code interval} (zero: one cycle, then
     * only the endpoints). Ready means: a cycle published successfully within the last two intervals (with a
     * zero interval: ever).
     */
    public static Daemon start(Cycle cycle, Metrics metrics, Duration interval, InetSocketAddress address)
            throws IOException, SchedulerException {
        Duration window = interval.multipliedBy(2);
        Endpoints endpoints = Endpoints.start(address, metrics.registry(), () -> interval.isZero()
                ? cycle.lastSuccess().isPresent() : cycle.succeededWithin(window));
        try {
            CycleScheduler scheduler = CycleScheduler.start(cycle::run, interval);
            LOG.info("running: a cycle every {}, endpoints on port {}", interval, endpoints.port());
            return new Daemon(endpoints, scheduler);
        } catch (SchedulerException | RuntimeException e) {
            endpoints.close();
            throw e;
        }
    }

    public int port() {
        return endpoints.port();
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.info("stopping: waiting for a running cycle to finish");
        try {
            scheduler.close();
            endpoints.close();
        } finally {
            stopped.countDown();
        }
        LOG.info("stopped");
    }
}
