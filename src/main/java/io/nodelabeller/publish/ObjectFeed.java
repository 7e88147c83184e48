package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.slf4j.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Objects of one kind the agent reads from the API server to label with (NodeFeatureRule objects, the node's
 * ResourceSlices): in {@code run}, one fabric8 informer — one LIST, then one WATCH that fabric8 resumes from the last
 * resourceVersion on reconnect and replaces by a fresh LIST after 410 Gone; no resync, so nothing is sent per cycle.
 * In {@code once}, one LIST. A change calls {@code onChange} once per burst: 500 ms plus, for a change every agent of
 * a cluster sees at the same moment ({@code clusterWide}), a random delay in {@code [0, spread]} after the first
 * event, so that the agents do not all patch their nodes in the same second. The first read is not delayed by the
 * spread.
 *
 * <p>Where the API is not served (404: a CRD not installed, a Kubernetes without the group version) the view is known
 * and empty, and the informer is started again after {@code recheck} (not per cycle). A 403 (RBAC) is logged once,
 * keeps the objects last seen (or, when none were ever read, leaves the view unknown, so that nothing they produced is
 * removed), and is tried again after {@code recheck} too. Other failures are retried by fabric8 with its backoff.
 */
public abstract class ObjectFeed implements AutoCloseable {

    /** Where the view stands, for logs and metrics. */
    public enum State {
        STARTING, SYNCED, ABSENT, FORBIDDEN, FAILING;

        /** The state as the metrics name it: lower case. */
        public String metricName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** Every state's {@link #metricName}, in order. */
        public static List<String> metricNames() {
            return java.util.Arrays.stream(values()).map(State::metricName).toList();
        }
    }

    private static final long DEBOUNCE_MS = 500;

    private final Logger log;
    private final KubernetesClient client;
    private final ResourceDefinitionContext context;
    /** Field selectors of the LIST and WATCH (empty: every object). */
    private final Map<String, String> fields;
    /** What the objects are, in log lines ("NodeFeatureRule objects"), and the RBAC they need. */
    private final String what;
    private final String rbac;
    /** Whether one of the objects' events reaches every agent of the cluster at once (spread their cycles). */
    private final boolean clusterWide;
    private volatile Runnable onChange = () -> { };
    private final Consumer<State> stateListener;
    private final Duration recheck;
    private final Duration spread;
    private final java.util.random.RandomGenerator random;
    private final ScheduledExecutorService timer;

    private volatile State state = State.STARTING;
    /** Told of every change of {@link #state}, for {@link #awaitKnown}. */
    private final Object stateChange = new Object();
    private volatile boolean everSynced;
    private SharedIndexInformer<GenericKubernetesResource> informer;
    private ScheduledFuture<?> pendingChange;
    private ScheduledFuture<?> recheckTask;
    private boolean closed;

    /** What is read, and how: the objects ({@code context}, {@code fields}), their names in logs, the RBAC they need. */
    record Kind(ResourceDefinitionContext context, Map<String, String> fields, String what, String rbac, String thread,
                boolean clusterWide) {
    }

    /**
     * @param stateListener told every state change (metrics)
     * @param recheck       how long after a 404 or 403 the objects are read again
     * @param spread        the longest random delay added to a cluster-wide change's 500 ms burst window
     */
    ObjectFeed(Logger log, KubernetesClient client, Kind kind, Consumer<State> stateListener, Duration recheck,
               Duration spread, java.util.random.RandomGenerator random) {
        this.log = log;
        this.client = client;
        this.context = kind.context();
        this.fields = Map.copyOf(kind.fields());
        this.what = kind.what;
        this.rbac = kind.rbac();
        this.clusterWide = kind.clusterWide();
        String thread = kind.thread();
        this.stateListener = stateListener;
        this.recheck = recheck;
        this.spread = spread;
        this.random = random;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, thread);
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /** An object was read or changed; true when that changes what the feed's view holds. */
    abstract boolean put(GenericKubernetesResource obj);

    /** An object was deleted; true when that changes the view. */
    abstract boolean remove(GenericKubernetesResource obj);

    /** The API is not served: no objects. */
    abstract void clear();

    /** Whether an update between these two versions matters: a change of its spec (a metadata-only one does not). */
    private static boolean changed(GenericKubernetesResource before, GenericKubernetesResource after) {
        return !java.util.Objects.equals(before.getAdditionalProperties().get("spec"), after.getAdditionalProperties().get("spec"));
    }

    /** The line logged once when the API is not served, with {@code recheck}. */
    abstract String absentLine(Duration recheck);

    /** Whether the objects are known: read, or known not to exist, or read once before a failure. */
    final boolean known() {
        State s = state;
        return s == State.SYNCED || s == State.ABSENT || everSynced;
    }

    public final State state() {
        return state;
    }

    /**
     * {@code run}: the informer (LIST + WATCH), started in the background; {@code changed} is called (on the feed's
     * own thread) after objects changed or the view became known.
     */
    public final synchronized void watch(Runnable changed) {
        this.onChange = changed;
        watch();
    }

    private synchronized void watch() {
        if (closed) {
            return;
        }
        var resources = client.genericKubernetesResources(context);
        SharedIndexInformer<GenericKubernetesResource> inf = fields.isEmpty() ? resources.runnableInformer(0)
                : resources.withFields(fields).runnableInformer(0);
        inf.exceptionHandler((started, t) -> {
            int code = code(t);
            if (code == 404 || code == 403) {
                return false; // handled below, when start() or stopped() completes: checked again after recheck
            }
            if (state != State.FAILING) {
                log.warn("{}: cannot read them ({}); retrying", what, message(t));
                setState(State.FAILING);
            }
            return true;
        });
        inf.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource obj) {
                if (put(obj) && everSynced) {
                    changed(clusterWide);
                }
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
                if (changed(oldObj, newObj) && put(newObj) && everSynced) {
                    changed(clusterWide);
                }
            }

            @Override
            public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
                if (remove(obj)) {
                    changed(clusterWide);
                }
            }
        });
        informer = inf;
        inf.start().whenComplete((ok, t) -> {
            if (t == null) {
                synced();
            } else {
                failed(t);
            }
        });
        inf.stopped().whenComplete((ok, t) -> {
            if (t != null) {
                failed(t);
            }
        });
    }

    /**
     * {@code once}: {@link #listOnce} on a daemon thread of its own, named {@code name}, so that the LIST goes to the API
     * server beside the other first requests; the thread is returned, started.
     */
    public final Thread listInBackground(String name) {
        Thread read = new Thread(this::listOnce, name);
        read.setDaemon(true);
        read.start();
        return read;
    }

    /** {@code once}: one LIST, waited for (bounded by the client's request timeout). */
    public final void listOnce() {
        try {
            var resources = client.genericKubernetesResources(context);
            List<GenericKubernetesResource> items = (fields.isEmpty() ? resources : resources.withFields(fields))
                    .list().getItems();
            items.forEach(this::put);
            synced();
        } catch (KubernetesClientException e) {
            failed(e);
        }
    }

    /** Waits until the first read ended (read, absent, forbidden, failing) or {@code timeout} passed; true when known. */
    public final boolean awaitKnown(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (stateChange) {
            long left;
            while (state == State.STARTING && (left = end - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(stateChange, left);
            }
        }
        return known();
    }

    /** The line logged when the objects are read (again). */
    abstract String syncedLine();

    private void synced() {
        boolean first = !everSynced;
        everSynced = true;
        if (state != State.SYNCED) {
            log.info("{}", syncedLine());
        }
        setState(State.SYNCED);
        if (first) {
            changed(false);
        }
    }

    private void failed(Throwable t) {
        int code = code(t);
        State next = code == 404 ? State.ABSENT : code == 403 ? State.FORBIDDEN : State.FAILING;
        if (next != state) {
            switch (next) {
                case ABSENT -> log.info("{}", absentLine(recheck));
                case FORBIDDEN -> log.warn("{}: forbidden ({}); RBAC: {}. {}; checking again every {}", what, message(t),
                        rbac, everSynced ? "Keeping the objects last read" : "Keeping what they produced on the node",
                        recheck);
                default -> log.warn("{}: cannot read them ({})", what, message(t));
            }
        }
        if (next == State.ABSENT) {
            clear();
        }
        boolean becameKnown = next == State.ABSENT && state != State.ABSENT;
        setState(next);
        synchronized (this) {
            if (informer != null) {
                informer.stop();
                informer = null;
            }
            // start() and stopped() may both report one failure: one recheck
            if (!closed && (next == State.ABSENT || next == State.FORBIDDEN) && (recheckTask == null || recheckTask.isDone())) {
                recheckTask = timer.schedule(this::watchAgain, recheck.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        if (becameKnown) {
            changed(false);
        }
    }

    private synchronized void watchAgain() {
        if (!closed && informer == null) {
            watch();
        }
    }

    /** @param clusterWide an object event, which every agent sees at once: spread; else (the first read) not */
    private synchronized void changed(boolean clusterWide) {
        if (closed || (pendingChange != null && !pendingChange.isDone())) {
            return;
        }
        Runnable callback = onChange;
        pendingChange = timer.schedule(callback, DEBOUNCE_MS + (clusterWide ? spreadMillis() : 0), TimeUnit.MILLISECONDS);
    }

    /** A delay drawn uniformly from {@code [0, spread]}. */
    final long spreadMillis() {
        long bound = spread.toMillis();
        return bound <= 0 ? 0 : random.nextLong(bound + 1);
    }

    private void setState(State next) {
        if (state != next) {
            state = next;
            stateListener.accept(next);
            synchronized (stateChange) { // after the listener: a waiter woken sees what it was told
                stateChange.notifyAll();
            }
        }
    }

    static int code(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() > 0) {
                return k.getCode();
            }
        }
        return 0;
    }

    private static String message(Throwable t) {
        int code = code(t);
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        m = m.replaceAll("\\s+", " ");
        return (code > 0 ? "HTTP " + code + ": " : "") + (m.length() > 200 ? m.substring(0, 200) + "…" : m);
    }

    @Override
    public void close() {
        SharedIndexInformer<GenericKubernetesResource> inf;
        synchronized (this) {
            closed = true;
            inf = informer;
            informer = null;
        }
        if (inf != null) {
            inf.stop();
        }
        timer.shutdownNow();
    }
}
