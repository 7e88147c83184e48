package io.nodelabeller.publish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleReader;
import io.nodelabeller.label.rules.RuleObjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The NodeFeatureRule objects of the cluster ({@code nfd.k8s-sigs.io/v1alpha1}, cluster-scoped), read as nfd-master
 * reads them: in {@code run}, one fabric8 informer — one LIST, then one cluster-wide WATCH that fabric8 resumes from
 * the last resourceVersion on reconnect and replaces by a fresh LIST after 410 Gone; no resync, so nothing is sent per
 * cycle. In {@code once}, one LIST. A change (created, changed, deleted object) calls {@code onChange} once per burst:
 * 500 ms plus a random delay in {@code [0, spread]} after the first event, so that a cycle applies it — and the agents
 * of a cluster, which all get the event at the same moment, do not all patch their nodes in the same second. Events
 * during that wait join the pending call. The first read at start-up is not delayed by the spread.
 *
 * <p>Where the CRD is not installed (404) there are no objects: the view is known and empty, and the informer is
 * started again after {@code recheck} (not per cycle). A 403 (RBAC without nodefeaturerules) is logged once, keeps the
 * objects last seen (or, when none were ever read, makes the view unknown, so that nothing they produced is removed),
 * and is tried again after {@code recheck} too. Other failures are retried by fabric8 with its backoff. An invalid rule
 * of an object is left out with one error line naming the object and the rule; the object's other rules apply.
 */
public final class NodeFeatureRules implements RuleObjects, AutoCloseable {

    /** Where the view stands, for logs and the {@code node_labeller_nodefeaturerules_state} metric. */
    public enum State { STARTING, SYNCED, ABSENT, FORBIDDEN, FAILING }

    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withPlural("nodefeaturerules")
            .withKind("NodeFeatureRule").withNamespaced(false).build();

    private static final Logger LOG = LoggerFactory.getLogger(NodeFeatureRules.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DEBOUNCE_MS = 500;

    private final KubernetesClient client;
    private volatile Runnable onChange = () -> { };
    private final Consumer<State> stateListener;
    private final Duration recheck;
    private final Duration spread;
    private final java.util.random.RandomGenerator random;
    private final ScheduledExecutorService timer;
    private final Map<String, RuleObject> objects = new ConcurrentSkipListMap<>();

    private volatile State state = State.STARTING;
    /** Told of every change of {@link #state}, for {@link #awaitKnown}. */
    private final Object stateChange = new Object();
    private volatile boolean everSynced;
    private SharedIndexInformer<GenericKubernetesResource> informer;
    private ScheduledFuture<?> pendingChange;
    private ScheduledFuture<?> recheckTask;
    private boolean closed;

    /**
     * @param stateListener told every state change (metrics)
     * @param recheck       how long after a 404 or 403 the objects are read again
     */
    public NodeFeatureRules(KubernetesClient client, Consumer<State> stateListener, Duration recheck) {
        this(client, stateListener, recheck, Duration.ZERO, new java.util.Random());
    }

    /**
     * @param spread the longest random delay added to a change's 500 ms burst window (publish.ruleChangeSpread)
     * @param random where that delay is drawn
     */
    public NodeFeatureRules(KubernetesClient client, Consumer<State> stateListener, Duration recheck, Duration spread,
                            java.util.random.RandomGenerator random) {
        this.client = client;
        this.stateListener = stateListener;
        this.recheck = recheck;
        this.spread = spread;
        this.random = random;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "nodefeaturerules");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    @Override
    public View current() {
        State s = state;
        boolean known = s == State.SYNCED || s == State.ABSENT || everSynced;
        return known ? new View(new ArrayList<>(objects.values()), true) : View.UNKNOWN;
    }

    public State state() {
        return state;
    }

    /**
     * {@code run}: the informer (LIST + WATCH), started in the background; {@code changed} is called (on the feed's
     * own thread) after objects changed or the view became known.
     */
    public synchronized void watch(Runnable changed) {
        this.onChange = changed;
        watch();
    }

    private synchronized void watch() {
        if (closed) {
            return;
        }
        SharedIndexInformer<GenericKubernetesResource> inf =
                client.genericKubernetesResources(CONTEXT).runnableInformer(0);
        inf.exceptionHandler((started, t) -> {
            int code = code(t);
            if (code == 404 || code == 403) {
                return false; // handled below, when start() or stopped() completes: checked again after recheck
            }
            if (state != State.FAILING) {
                LOG.warn("NodeFeatureRule objects: cannot read them ({}); retrying", message(t));
                setState(State.FAILING);
            }
            return true;
        });
        inf.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource obj) {
                put(obj);
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
                if (!java.util.Objects.equals(oldObj.getAdditionalProperties().get("spec"),
                        newObj.getAdditionalProperties().get("spec"))) {
                    put(newObj);
                }
            }

            @Override
            public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
                if (objects.remove(obj.getMetadata().getName()) != null) {
                    LOG.info("NodeFeatureRule {} deleted", obj.getMetadata().getName());
                    changed(true);
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

    /** {@code once}: one LIST, waited for (bounded by the client's request timeout). */
    public void listOnce() {
        try {
            List<GenericKubernetesResource> items = client.genericKubernetesResources(CONTEXT).list().getItems();
            items.forEach(this::put);
            synced();
        } catch (KubernetesClientException e) {
            failed(e);
        }
    }

    /** Waits until the first read ended (read, absent, forbidden, failing) or {@code timeout} passed; true when known. */
    public boolean awaitKnown(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (stateChange) {
            long left;
            while (state == State.STARTING && (left = end - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(stateChange, left);
            }
        }
        return current().known();
    }

    private void synced() {
        boolean first = !everSynced;
        everSynced = true;
        if (state != State.SYNCED) {
            LOG.info("NodeFeatureRule objects: {} read, watching for changes", objects.size());
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
                case ABSENT -> LOG.info("NodeFeatureRule objects: the CRD nodefeaturerules.nfd.k8s-sigs.io is not"
                        + " installed; using the configured rules only, checking again every {}", recheck);
                case FORBIDDEN -> LOG.warn("NodeFeatureRule objects: forbidden ({}); RBAC: the service account needs get,"
                        + " list and watch on nodefeaturerules.nfd.k8s-sigs.io. {}; checking again every {}", message(t),
                        everSynced ? "Keeping the objects last read" : "Keeping what they produced on the node", recheck);
                default -> LOG.warn("NodeFeatureRule objects: cannot read them ({})", message(t));
            }
        }
        if (next == State.ABSENT && !objects.isEmpty()) {
            objects.clear();
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

    private void put(GenericKubernetesResource obj) {
        String name = obj.getMetadata().getName();
        RuleObject parsed = parse(name, obj.getAdditionalProperties().get("spec"));
        RuleObject before = objects.put(name, parsed);
        LOG.info("NodeFeatureRule {} {}: {} rule(s)", name, before == null ? "read" : "changed", parsed.rules().size());
        if (everSynced) {
            changed(true);
        }
    }

    /** An object's rules; a rule with a problem is left out with one error line naming the object and the rule. */
    static RuleObject parse(String name, Object spec) {
        JsonNode tree = spec == null ? null : JSON.valueToTree(spec);
        List<String> skipped = new ArrayList<>();
        List<Rule> rules = RuleReader.readObjectRules("NodeFeatureRule " + name, tree == null ? null : tree.get("rules"), skipped);
        skipped.forEach(line -> LOG.error("{}", line));
        return new RuleObject(name, rules);
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
    long spreadMillis() {
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
