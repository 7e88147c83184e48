package io.nodelabeller.publish;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.label.LabelSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.SortedMap;

/**
 * Writes the labels onto the agent's own Node: one JSON Patch, only when something differs, touching
 * only the labels it owns ({@link NodePatch}). The node is known from a watch ({@link NodeView}), so a cycle
 * with nothing to change sends no request at all.
 *
 * <p>Errors: 409/422 (our copy was stale) → read the node again and retry at once (a few times); 429, 5xx,
 * timeouts and resets → exponential backoff with jitter, never sooner than {@code Retry-After}; 401/403/404 and
 * other 4xx → give up this cycle. Each publish is bounded by {@link Settings#giveUpAfter()} and
 * {@link Settings#maxAttempts()}; then it throws {@link PublishException} and the next cycle tries again.
 * Nothing is removed because of an error. The client must not retry by itself (see {@link KubernetesClients}),
 * or the two retry layers would multiply.
 *
 * <p>Not thread-safe: cycles never overlap. {@link #close()} stops the watch; the client stays the caller's.
 */
public final class NodePublisher implements Publisher {

    private static final Logger LOG = LoggerFactory.getLogger(NodePublisher.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Re-reads after a 409/422 before falling back to backoff (another writer keeps racing us). */
    private static final int CONFLICT_REREADS = 3;
    /** Patches per publish: one, and one more after a take-over (claim, then value). */
    private static final int MAX_PATCHES = 2;

    /**
     * @param requestTimeout one request's limit
     * @param giveUpAfter    a publish gives up when the next wait would end past this (measured on {@code timing})
     * @param maxAttempts    requests that failed with a retryable error before giving up, whatever the time
     * @param initialBackoff first wait; doubles per retry, with jitter in [d/2, d]
     * @param maxBackoff     longest wait (a longer {@code Retry-After} is honoured while it fits in giveUpAfter)
     * @param watchTimeout   the watch's {@code timeoutSeconds}; null = no watch, read the node every cycle
     * @param timing         clock and sleeper ({@link Timing#SYSTEM}; tests pass a fake one)
     * @param random         jitter source
     * @param silenceLimit   how long the watch may show no sign of life (event or bookmark) before the node is read
     *                       again to check it; a live API server sends a bookmark about every minute
     */
    public record Settings(Duration requestTimeout, Duration giveUpAfter, int maxAttempts, Duration initialBackoff,
                           Duration maxBackoff, Duration watchTimeout, Timing timing, Random random, Duration silenceLimit) {

        public Settings {
            Objects.requireNonNull(requestTimeout);
            Objects.requireNonNull(giveUpAfter);
            Objects.requireNonNull(timing);
            Objects.requireNonNull(random);
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1");
            }
        }

        /**
         * 10 s per request, give up after 30 s or 6 failed tries, backoff 0.5 s … 10 s, watch re-opened hourly, a
         * silent watch checked after 10 minutes (ten cycles of the default interval).
         */
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(10), Duration.ofSeconds(30), 6, Duration.ofMillis(500),
                    Duration.ofSeconds(10), Duration.ofHours(1), Timing.SYSTEM, new Random(), Duration.ofMinutes(10));
        }

        public Settings withWatchTimeout(Duration d) {
            return new Settings(requestTimeout, giveUpAfter, maxAttempts, initialBackoff, maxBackoff, d, timing, random, silenceLimit);
        }

        public Settings withTiming(Timing t, Random r) {
            return new Settings(requestTimeout, giveUpAfter, maxAttempts, initialBackoff, maxBackoff, watchTimeout, t, r, silenceLimit);
        }

        public Settings withRequestTimeout(Duration d) {
            return new Settings(d, giveUpAfter, maxAttempts, initialBackoff, maxBackoff, watchTimeout, timing, random, silenceLimit);
        }

        /** Ten cycles of {@code interval}, at least 10 s: a dead watch costs at most that much of blindness. */
        public Settings withCycleInterval(Duration interval) {
            Duration limit = interval.multipliedBy(10);
            return new Settings(requestTimeout, giveUpAfter, maxAttempts, initialBackoff, maxBackoff, watchTimeout, timing, random,
                    limit.compareTo(Duration.ofSeconds(10)) < 0 ? Duration.ofSeconds(10) : limit);
        }
    }

    private final String nodeName;
    private final Settings settings;
    private final PublishEvents events;
    private final NodeApi api;
    private final NodeView view;
    private final Backoff backoff;
    private final ProblemLog problems;

    public NodePublisher(KubernetesClient client, String nodeName, Settings settings, PublishEvents events) {
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("the node name is empty: set --node-name or NODE_NAME");
        }
        this.nodeName = nodeName;
        this.settings = settings;
        this.events = events == null ? PublishEvents.NONE : events;
        this.api = new NodeApi(client, nodeName, settings.requestTimeout(), settings.timing());
        this.view = new NodeView(client, nodeName, settings.watchTimeout(), settings.silenceLimit(), settings.timing());
        this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff(), settings.random());
        this.problems = new ProblemLog(LOG, "node " + nodeName);
    }

    @Override
    public String name() {
        return "node";
    }

    @Override
    public boolean publish(LabelSet desired) throws PublishException {
        return !apply(desired.asMap()).isEmpty();
    }

    /**
     * Brings the node to {@code desired}; returns the operations sent, empty when nothing was needed. Usually one
     * patch; a second one right after when the first took over a foreign label (it can only claim the key: see
     * {@link NodePatch}), computed on the node the first one returned.
     */
    List<NodePatch.Op> apply(SortedMap<String, String> desired) throws PublishException {
        long start = settings.timing().nanoTime();
        int failures = 0;
        int rereads = 0;
        List<NodePatch.Op> sent = new ArrayList<>();
        int patches = 0;
        Node node = null; // the node as this call last saw it
        while (true) {
            try {
                if (node == null) {
                    node = view.current();
                }
                if (node == null) {
                    node = api.get();
                    view.seed(node);
                }
                List<NodePatch.Op> ops = NodePatch.compute(node.getMetadata().getLabels(),
                        node.getMetadata().getAnnotations(), node.getMetadata().getResourceVersion(), desired);
                if (ops.isEmpty() || patches == MAX_PATCHES) {
                    problems.ok();
                    return List.copyOf(sent);
                }
                Node patched = api.patch(json(ops));
                events.patchSent();
                view.offer(patched);
                LOG.info("node {}: patched ({} operations)", nodeName, ops.size());
                sent.addAll(ops);
                patches++;
                node = patched;
            } catch (NodeApi.Failure f) {
                events.apiError(f.status);
                view.invalidate();
                node = null;
                int status = f.status;
                if ((status == 409 || status == 422) && rereads < CONFLICT_REREADS) {
                    rereads++;
                    LOG.debug("node {}: {}; reading the node again", nodeName, f.getMessage());
                    continue;
                }
                if (!retryable(status)) {
                    problems.failed("http-" + status, f.getMessage() + hint(status));
                    throw new PublishException("node " + nodeName + ": " + f.getMessage(), status, f);
                }
                Duration wait = backoff.delay(failures, f.retryAfter);
                failures++;
                Duration elapsed = Duration.ofNanos(settings.timing().nanoTime() - start);
                if (failures >= settings.maxAttempts() || elapsed.plus(wait).compareTo(settings.giveUpAfter()) > 0) {
                    problems.failed(kind(status), f.getMessage() + "; giving up this cycle after " + failures + " attempts");
                    throw new PublishException("node " + nodeName + ": gave up after " + failures + " attempts: "
                            + f.getMessage(), status, f);
                }
                problems.failed(kind(status), f.getMessage() + "; retrying in " + wait.toMillis() + " ms");
                sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PublishException("node " + nodeName + ": interrupted", 0, e);
            } catch (RuntimeException e) {
                // never let a surprise from the client kill the daemon's cycle
                view.invalidate();
                problems.failed("unexpected", "unexpected error: " + e);
                throw new PublishException("node " + nodeName + ": unexpected error: " + e, 0, e);
            }
        }
    }

    private void sleep(Duration wait) throws PublishException {
        try {
            settings.timing().sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("node " + nodeName + ": interrupted while waiting to retry", 0, e);
        }
    }

    /** 0 = no answer (timeout, reset); 409/422 past the re-reads; 429; 5xx. */
    static boolean retryable(int status) {
        return status == 0 || status == 409 || status == 422 || status == 429 || status >= 500;
    }

    private static String kind(int status) {
        return status == 0 ? "io" : "http-" + status;
    }

    private static String hint(int status) {
        return switch (status) {
            case 401 -> " (credentials rejected)";
            case 403 -> " (RBAC: the service account needs get, list, watch and patch on nodes)";
            case 404 -> " (no such node: check --node-name / NODE_NAME)";
            default -> "";
        };
    }

    static String json(List<NodePatch.Op> ops) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (NodePatch.Op op : ops) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("op", op.op());
            m.put("path", op.path());
            if (!op.op().equals("remove")) {
                m.put("value", op.value());
            }
            out.add(m);
        }
        try {
            return JSON.writeValueAsString(out);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON patch", e);
        }
    }

    /**
     * The labels this agent owns on the node now: those listed in the ownership annotation. Read once at start so
     * that a restart whose first discovery has a failing source removes nothing. The read seeds the view, so the
     * first publish sends no second GET.
     */
    public SortedMap<String, String> ownedLabels() throws PublishException {
        try {
            Node node = view.current();
            if (node == null) {
                node = api.get();
                view.seed(node);
            }
            Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
            SortedMap<String, String> out = new java.util.TreeMap<>();
            for (String key : NodePatch.owned(node.getMetadata().getAnnotations())) {
                if (labels.containsKey(key)) {
                    out.put(key, labels.get(key));
                }
            }
            return out;
        } catch (NodeApi.Failure f) {
            events.apiError(f.status);
            view.invalidate();
            throw new PublishException("node " + nodeName + ": " + f.getMessage() + hint(f.status), f.status, f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("node " + nodeName + ": interrupted", 0, e);
        }
    }

    /** The node as the watch last showed it (for tests that wait for an event). */
    Node viewed() {
        return view.peek();
    }

    @Override
    public void close() {
        view.close();
    }
}
