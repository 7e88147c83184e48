package io.nodelabeller.source;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.log.ProblemLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs sources one after another; a source that fails costs only its own features. Sources run on a long-lived
 * daemon worker thread, each under a deadline: a host file whose {@code open} or {@code read} blocks (sysfs
 * attributes of a wedged driver can) fails that source alone, and cannot keep the cycle, {@code print} or the
 * process's exit waiting. The worker a source overran on is left to it and a new one takes the next sources; a
 * source still blocked from an earlier discovery is not started again (one stuck thread per source at most) and
 * fails until its thread comes back. (One worker, not a thread per source: a new thread starts with cold
 * thread-local caches, NIO's native buffers among them, which doubled the cost of a cycle.)
 */
public final class Discovery {

    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** How the problem "the source failed" begins (a new cause is a new problem, logged again). */
    private static final String FAILED = "failed, its labels are left out of this discovery (earlier ones are kept for a while): ";

    private final HostFs host;
    /** The sources by name, in discovery order. */
    private Map<String, Source> sources;
    private Duration timeout;
    /** Each source's problems: logged when they start, not every cycle. */
    private final Map<String, ProblemLog> problems = new HashMap<>();
    /** Set by {@link #stop()}: no source is started any more, and the one running is not waited for. */
    private volatile boolean stopped;
    private volatile FutureTask<?> current;
    /** The worker and its thread; null until first needed and after a source overran on it. */
    private ExecutorService worker;
    private volatile Thread workerThread;
    /** Threads of runs that overran their deadline, by source, until they come back. */
    private final Map<String, Thread> stuck = new HashMap<>();
    /** A discovery started ahead of its cycle by {@link #startEarly()}; the next {@link #discover()} takes it. */
    private final AtomicReference<FutureTask<Snapshot>> early = new AtomicReference<>();

    /** Discovery by {@code sources} (name to source, in the order they run). */
    public Discovery(HostFs host, Map<String, ? extends Source> sources) {
        this(host, sources, DEFAULT_TIMEOUT);
    }

    public Discovery(HostFs host, Map<String, ? extends Source> sources, Duration timeout) {
        this.host = host;
        this.sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
        this.timeout = timeout;
    }

    /**
     * Other sources and deadline from the next discovery on (a reloaded config); waits for a running discovery.
     * The worker, the record of sources stuck in a host read and the problems already logged are kept.
     */
    public synchronized void reconfigure(Map<String, ? extends Source> newSources, Duration newTimeout) {
        this.sources = Collections.unmodifiableMap(new LinkedHashMap<>(newSources));
        this.timeout = newTimeout;
        early.set(null); // it ran the old sources
    }

    /**
     * Starts the next discovery now, on a thread of its own, and returns: the host is read while the caller does
     * its own start-up work (building the Kubernetes client, reading the node), and the next {@link #discover()}
     * returns this discovery's result instead of running one. Bounded like any discovery (each source under its
     * deadline); {@link #stop()} abandons it, {@link #reconfigure} discards it.
     */
    public void startEarly() {
        FutureTask<Snapshot> task = new FutureTask<>(this::discoverNow);
        early.set(task);
        Thread t = new Thread(task, "discovery-early");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Runs every source once, or returns the discovery {@link #startEarly()} started (waiting for it to end). A
     * source that throws costs only its own features; one that throws {@link SourceFailure} still contributes the
     * features that say why. Warnings and failures are logged when they first appear (and a recovery once), so
     * that a daemon cycling every minute does not repeat itself.
     */
    public Snapshot discover() {
        FutureTask<Snapshot> started = early.getAndSet(null);
        if (started == null) {
            return discoverNow();
        }
        try {
            return started.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new Stopped();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private synchronized Snapshot discoverNow() {
        List<Features> parts = new ArrayList<>();
        Map<String, SourceStatus> statuses = new LinkedHashMap<>();
        for (Map.Entry<String, Source> named : sources.entrySet()) {
            String name = named.getKey();
            if (stopped) {
                throw new Stopped();
            }
            List<String> warnings = new ArrayList<>();
            String error = null;
            try {
                parts.add(runBounded(name, named.getValue(), warnings));
            } catch (SourceFailure e) {
                error = e.getMessage();
                parts.add(e.known());
            } catch (Exception | LinkageError e) {
                error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                LOG.debug("source {} failure", name, e);
            }
            if (stopped) {
                throw new Stopped();
            }
            report(name, List.copyOf(warnings), error);
            statuses.put(name, new SourceStatus(name, warnings, error));
        }
        return Snapshot.of(Features.union(parts), statuses);
    }

    /** The source's features, run on the worker thread and given up after {@link #timeout}. */
    private Features runBounded(String name, Source source, List<String> warnings) throws Exception {
        Thread earlier = stuck.get(name);
        if (earlier != null) {
            if (earlier.isAlive()) {
                throw new IllegalStateException("still blocked since an earlier discovery overran its " + seconds() + " deadline;"
                        + " not started again");
            }
            stuck.remove(name);
        }
        List<String> collected = Collections.synchronizedList(new ArrayList<>());
        FutureTask<Features> task = new FutureTask<>(() -> source.discover(host, collected::add));
        current = task;
        worker().execute(task);
        if (stopped) {
            task.cancel(true);
        }
        try {
            return task.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            task.cancel(true); // ends a source between reads; a blocked open() or read stays until it returns
            stuck.put(name, workerThread);
            worker.shutdown(); // its thread ends once the source returns; the next source gets a new worker
            worker = null;
            throw new IllegalStateException("did not finish within its " + seconds() + " deadline (core.sourceTimeout):"
                    + " a host file that blocks? given up");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof LinkageError le) {
                throw le;
            }
            throw e;
        } catch (CancellationException e) {
            throw new Stopped();
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            throw new Stopped();
        } finally {
            current = null;
            synchronized (collected) {
                warnings.addAll(collected);
            }
        }
    }

    private ExecutorService worker() {
        if (worker == null) {
            worker = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "discovery");
                t.setDaemon(true);
                workerThread = t;
                return t;
            });
        }
        return worker;
    }

    /**
     * Abandons discovery for good (SIGTERM): the source running now is not waited for, none is started again, and
     * {@link #discover()} throws {@link Stopped}, so the cycle publishes nothing rather than half a discovery.
     */
    public void stop() {
        stopped = true;
        FutureTask<?> t = current;
        if (t != null) {
            t.cancel(true);
        }
    }

    /** Thrown by {@link #discover()} after {@link #stop()}. */
    public static final class Stopped extends RuntimeException {
        Stopped() {
            super("discovery stopped", null, false, false);
        }
    }

    private String seconds() {
        return timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + "s" : timeout.toMillis() + "ms";
    }

    private void report(String source, List<String> warnings, String error) {
        ProblemLog log = problems.computeIfAbsent(source, s -> new ProblemLog(LOG, "source " + s));
        boolean wasFailing = log.current().stream().anyMatch(p -> p.startsWith(FAILED));
        List<String> now = new ArrayList<>();
        if (error != null) {
            now.add(FAILED + error);
        }
        now.addAll(warnings);
        log.report(now);
        if (error == null && wasFailing) {
            LOG.info("source {}: discovers again", source);
        }
    }
}
