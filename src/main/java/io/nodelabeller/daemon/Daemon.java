package io.nodelabeller.daemon;

import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code run}: the cycle on a schedule plus the HTTP endpoints. {@link #close()} stops scheduling, waits for an
 * in-flight cycle (so a publish is never cut in half), then stops the endpoints. Publishers belong to the caller.
 */
public final class Daemon implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    private final Endpoints endpoints;
    private final AtomicReference<Duration> interval;
    private CycleScheduler scheduler;
    private volatile Cycle cycle;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<String> fatal = new AtomicReference<>();

    private Daemon(Endpoints endpoints, AtomicReference<Duration> interval) {
        this.endpoints = endpoints;
        this.interval = interval;
    }

    /**
     * Serves the endpoints on {@code address} and starts cycling every {@code interval} (zero: one cycle, then
     * only the endpoints). Ready means: a cycle published successfully within the last two intervals (with a
     * zero interval: ever).
     */
    public static Daemon start(Cycle cycle, Metrics metrics, Duration interval, InetSocketAddress address)
            throws IOException, SchedulerException {
        return start(cycle, metrics, interval, address, () -> { });
    }

    /** As above, running {@code beforeCycle} (e.g. a config choice that depends on the node) before each cycle. */
    public static Daemon start(Cycle cycle, Metrics metrics, Duration interval, InetSocketAddress address,
                               Runnable beforeCycle) throws IOException, SchedulerException {
        AtomicReference<Duration> current = new AtomicReference<>(interval);
        Endpoints endpoints = Endpoints.start(address, metrics.registry(), () -> current.get().isZero()
                ? cycle.lastSuccess().isPresent() : cycle.succeededWithin(current.get().multipliedBy(2)));
        Daemon daemon = new Daemon(endpoints, current);
        daemon.cycle = cycle;
        try {
            // published before the first cycle can end: stopAfterFatal may need it
            synchronized (daemon) {
                daemon.scheduler = CycleScheduler.start(scheduled -> {
                    try {
                        beforeCycle.run();
                    } catch (RuntimeException e) {
                        LOG.error("preparing the cycle failed; it runs as configured before", e);
                    }
                    daemon.afterCycle(cycle.run(scheduled));
                }, interval);
            }
            LOG.info("running: a cycle every {}, endpoints on port {}", interval, endpoints.port());
            return daemon;
        } catch (SchedulerException | RuntimeException e) {
            endpoints.close();
            throw e;
        }
    }

    /**
     * Runs a cycle as soon as the running one (if any) is done, and counts the time to the next one from there:
     * a reloaded config or a changed features.d file reaches the node without waiting for the interval.
     */
    public void cycleNow() {
        try {
            synchronized (this) {
                if (!closed.get()) {
                    scheduler.triggerNow();
                }
            }
        } catch (SchedulerException e) {
            LOG.warn("could not start a cycle now, the next scheduled one will run: {}", e.getMessage());
        }
    }

    /** A reloaded {@code core.sleepInterval}: used from the next scheduling on, and for readiness. */
    public synchronized void setInterval(Duration newInterval) {
        interval.set(newInterval);
        scheduler.setInterval(newInterval);
    }

    public int port() {
        return endpoints.port();
    }

    /** Why a cycle stopped the daemon (e.g. NVML under {@code failOnInitError}), or null. */
    public String fatalError() {
        return fatal.get();
    }

    /**
     * A fatal outcome stops the daemon. Closing waits for the running cycle, which is this one, so it is done
     * from another thread; the scheduler stops before a further cycle can start.
     */
    private void afterCycle(Cycle.Outcome outcome) {
        if (outcome.fatal() != null && fatal.compareAndSet(null, outcome.fatal())) {
            Thread stopper = new Thread(this::close, "node-labeller-stop");
            stopper.setDaemon(false);
            stopper.start();
        }
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
            if (cycle != null) {
                cycle.stopDiscovering(); // a host read that blocks must not hold SIGTERM; a publish is finished
            }
            synchronized (this) {
                scheduler.close();
            }
            endpoints.close();
        } finally {
            stopped.countDown();
        }
        LOG.info("stopped");
    }
}
