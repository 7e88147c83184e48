package io.nodelabeller.publish;

import io.nodelabeller.log.ProblemLog;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.LabelSet.Kind;
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
 * <p>Errors follow {@link Retrying} (a 409/422 reads the node again; 429, 5xx and timeouts back off; other 4xx give
 * up this cycle), bounded per publish by {@link Settings#giveUpAfter()} and {@link Settings#maxAttempts()}; then
 * {@link PublishException}, and the next cycle tries again. Nothing is removed because of an error.
 *
 * <p>Not thread-safe: cycles never overlap. {@link #close()} stops the watch; the client stays the caller's.
 */
public final class NodePublisher implements Publisher {

    private static final Logger LOG = LoggerFactory.getLogger(NodePublisher.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Patches per publish: usually one. More when something is taken over from nfd-master (claim, then value) and for
     * extended resources (the status patch, after the node's).
     */
    private static final int MAX_PATCHES = 5;
    /** Patches per publish when the labels to add are spread over several writes ({@link WriteBudget}). */
    private static final int MAX_SPREAD_PATCHES = 100;

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
    private final Install install;
    private final Part part;
    private final Settings settings;
    private final PublishEvents events;
    private final ApiClient api;
    private final String path;
    private final NodeView view;
    private final Retrying retrying;
    private final ProblemLog problems;
    /** Desired outputs another writer has on the node with another value, left as they are. */
    private final ProblemLog others;

    /** The default install's node, its outputs unchecked ({@link Install#unchecked}): tests and {@code prune}. */
    public NodePublisher(KubernetesClient client, String nodeName, Settings settings, PublishEvents events) {
        this(client, nodeName, settings, events, Install.unchecked(Bookkeeping.DEFAULT));
    }

    /** The node of {@code install}'s agent: its tracking annotations, its outputs within its write scope. */
    public NodePublisher(KubernetesClient client, String nodeName, Settings settings, PublishEvents events, Install install) {
        this(client, nodeName, settings, events, install, Part.ALL);
    }

    /** The node of {@code install}'s agent that keeps {@code part} of the install's labels (two agents on a GPU node). */
    public NodePublisher(KubernetesClient client, String nodeName, Settings settings, PublishEvents events, Install install,
                         Part part) {
        this.part = java.util.Objects.requireNonNull(part);
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("the node name is empty: set --node-name or NODE_NAME");
        }
        this.nodeName = nodeName;
        this.install = java.util.Objects.requireNonNull(install);
        this.settings = settings;
        this.events = events == null ? PublishEvents.NONE : events;
        this.api = new ApiClient(client, settings.requestTimeout(), settings.timing());
        this.path = "/api/v1/nodes/" + nodeName;
        this.view = new NodeView(client, nodeName, settings.watchTimeout(), settings.silenceLimit(), settings.timing());
        this.retrying = new Retrying(settings);
        this.problems = new ProblemLog(LOG, "node " + nodeName);
        this.others = new ProblemLog(LOG, "node " + nodeName);
    }

    /**
     * Prepares, in the background, the reading of the Node the first cycle will GET ({@link ApiClient#prepareReading}):
     * run and once call it as the client is set up, before their first request.
     */
    public void prepare() {
        api.prepareReading(Node.class);
    }

    @Override
    public String name() {
        return "node";
    }

    @Override
    public boolean publish(LabelSet desired) throws PublishException {
        Map<String, String> dropped = new java.util.TreeMap<>();
        LabelSet allowed = install.filter(desired, dropped);
        SortedMap<String, String> labels = new java.util.TreeMap<>(allowed.asMap(Kind.LABEL));
        Part here = partHere();
        if (here.shared()) { // the other agent's labels are not this one's to write (a rule's, say)
            Map<String, io.nodelabeller.label.Label> produced = allowed.of(Kind.LABEL);
            labels.keySet().removeIf(k -> {
                String problem = here.problem(k);
                io.nodelabeller.label.Label l = produced.get(k);
                // labels from the node's ResourceSlices yield to the GPU agent's where it runs: nothing to warn about
                if (problem != null && (l == null || !Part.SLICE_LABELER.equals(l.source()))) {
                    dropped.put(Kind.LABEL + " " + k, problem);
                }
                return problem != null;
            });
        }
        install.report(dropped);
        // a kind labelling did not produce (switched off) is left as it is on the node: null
        return !apply(new NodePatch.Desired(labels, orNull(allowed, Kind.ANNOTATION),
                orNull(allowed, Kind.TAINT), orNull(allowed, Kind.EXTENDED_RESOURCE)), here.keeps(labels)).isEmpty();
    }

    /**
     * This agent's part on the node as last seen ({@link Part#on}): where the install's GPU agent stands there. A node
     * not in view (an error since) counts as one the GPU agent may label: its labels are neither written nor removed.
     */
    private Part partHere() {
        return part.shared() ? part.on(seenLabels(), noGpuAgentKnown()) : part;
    }

    /**
     * Whether this host agent's install has no GPU agent for sure; false for the GPU agent, and while the install's
     * binding cannot be read (its publishing reports that): a GPU agent's labels are never removed on a guess.
     */
    private boolean noGpuAgentKnown() {
        try {
            return part.role() == io.nodelabeller.config.Role.HOST && install.namesNoGpuAgent();
        } catch (PublishException e) {
            return false;
        }
    }

    private static SortedMap<String, String> orNull(LabelSet set, Kind kind) {
        return set.produces(kind) ? set.asMap(kind) : null;
    }

    /** Labels only (tests). */
    List<NodePatch.Op> apply(SortedMap<String, String> desired) throws PublishException {
        return apply(NodePatch.Desired.labels(desired));
    }

    /**
     * Brings the node to {@code desired}; returns the operations sent, empty when nothing was needed. Usually one
     * patch; more right after when the first took over something foreign (it can only claim the key: see
     * {@link NodePatch}) or extended resources change (status subresource), each computed on the node the previous
     * one returned.
     */
    List<NodePatch.Op> apply(NodePatch.Desired desired) throws PublishException {
        return apply(desired, k -> true);
    }

    /** As {@link #apply(NodePatch.Desired)}, adding, changing and removing only the labels {@code keeps} accepts. */
    List<NodePatch.Op> apply(NodePatch.Desired desired, java.util.function.Predicate<String> keeps) throws PublishException {
        WriteBudget budget = install.budget();
        Node[] seen = {null}; // the node as this call last saw it; dropped after any failed request
        Retrying.Run run = retrying.start("node " + nodeName, problems, f -> {
            events.apiError(f.status);
            view.invalidate();
            seen[0] = null;
            if (f.status == 403) {
                install.reread(); // the install's ClusterRoleBinding (its write scope) may have changed
            }
        }, NodePublisher::hint);
        List<NodePatch.Op> sent = new ArrayList<>();
        for (int patches = 0; ; patches++) {
            int patchesSoFar = patches;
            List<NodePatch.Op> ops = run.call(() -> {
                Node node = seen[0] != null ? seen[0] : current();
                seen[0] = node;
                NodePatch.Node state = NodeStates.of(node);
                NodePatch.Desired step = step(budget, state, desired);
                NodePatch.Plan plan = NodePatch.plan(state, step, install.bookkeeping(), keeps, part.shared());
                if (plan.isEmpty() || patchesSoFar == (step == desired ? MAX_PATCHES : MAX_SPREAD_PATCHES)) {
                    reportOthers(plan.leftAlone());
                    return List.<NodePatch.Op>of();
                }
                // the node first, then the extended resources in status
                boolean status = plan.node().isEmpty();
                List<NodePatch.Op> needed = status ? plan.status() : plan.node();
                Node patched = api.patch(status ? path + "/status" : path, ApiClient.JSON_PATCH, json(needed), Node.class);
                events.patchSent();
                view.offer(patched);
                LOG.info("node {}: patched{} ({} operations)", nodeName, status ? " status" : "", needed.size());
                seen[0] = patched;
                return needed;
            });
            if (ops.isEmpty()) {
                problems.ok();
                return List.copyOf(sent);
            }
            sent.addAll(ops);
        }
    }

    /** {@code desired} as far as one write may take it under the install's policy ({@link WriteBudget}). */
    private NodePatch.Desired step(WriteBudget budget, NodePatch.Node state, NodePatch.Desired desired) {
        if (desired.labels() == null) {
            return desired;
        }
        java.util.SortedSet<String> owned = NodePatch.owned(state.annotations() == null ? Map.of() : state.annotations(),
                install.bookkeeping().labels());
        SortedMap<String, String> labels = budget.step(desired.labels(), state.labels() == null ? Map.of() : state.labels(),
                owned::contains);
        return labels == desired.labels() ? desired
                : new NodePatch.Desired(labels, desired.annotations(), desired.taints(), desired.extendedResources());
    }

    /**
     * One warning when the set of outputs another writer holds with another value changes (not every cycle), one line
     * when there are none any more. They are not taken over: only nfd-master hands labels over, and the admission
     * policy denies listing any other writer's key.
     */
    private void reportOthers(java.util.SortedSet<String> leftAlone) {
        if (leftAlone.isEmpty()) {
            others.ok("no output of another writer in the way any more");
        } else {
            others.report(Map.of(leftAlone.toString(), "another writer holds " + String.join(", ", leftAlone)
                    + " with another value than node-labeller's (or another install lists it); left as it is (only what"
                    + " nfd-master lists as its own, and no other install does, is taken over)"));
        }
    }

    /** The node as the watch shows it, else read (GET) and handed to the view, which starts the watch from it. */
    private Node current() throws ApiClient.Failure, InterruptedException {
        Node node = view.current();
        if (node == null) {
            node = api.get(path, Node.class);
            view.seed(node);
        }
        return node;
    }

    private static String hint(int status) {
        return switch (status) {
            case 401 -> " (credentials rejected)";
            case 403 -> " (RBAC: the service account needs get, list, watch and patch on nodes; or the install's admission"
                    + " policy: its message says what it refused)";
            case 404 -> " (no such node: check --node-name / NODE_NAME)";
            default -> "";
        };
    }

    /** {@code ops} as the RFC 6902 document this agent sends (tests send the same bytes to a real API server). */
    public static String json(List<NodePatch.Op> ops) {
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
     * What this agent owns on the node now, by kind: the labels, annotations, taints ({@code key:effect} → value) and
     * extended resources listed in the tracking annotations and present. Read once at start so that a restart whose
     * first discovery has a failing source (or does not know the NodeFeatureRule objects yet) removes nothing. The
     * read seeds the view, so the first publish sends no second GET.
     */
    public Map<Kind, SortedMap<String, String>> ownedOutputs() throws PublishException {
        try {
            NodePatch.Node node = NodeStates.of(current());
            Bookkeeping bk = install.bookkeeping();
            Map<Kind, SortedMap<String, String>> out = new java.util.EnumMap<>(Kind.class);
            java.util.SortedSet<String> labels = NodePatch.owned(node.annotations(), bk.labels());
            Part here = part.shared() ? part.on(node.labels(), noGpuAgentKnown()) : part;
            labels.removeIf(k -> !here.owns(k)); // the other agent's part is not this one's to keep
            out.put(Kind.LABEL, present(node.labels(), labels));
            out.put(Kind.ANNOTATION, present(node.annotations(), NodePatch.owned(node.annotations(), bk.annotations())));
            Map<String, String> taints = new java.util.TreeMap<>();
            if (node.taints() != null) {
                node.taints().forEach(t -> taints.put(TaintList.taintId(t), t.get("value") == null ? "" : t.get("value").toString()));
            }
            out.put(Kind.TAINT, present(taints, NodePatch.owned(node.annotations(), bk.taints())));
            out.put(Kind.EXTENDED_RESOURCE, present(node.capacity(), NodePatch.owned(node.annotations(), bk.extendedResources())));
            return out;
        } catch (ApiClient.Failure f) {
            events.apiError(f.status);
            view.invalidate();
            throw new PublishException("node " + nodeName + ": " + f.getMessage() + hint(f.status), f.status, f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("node " + nodeName + ": interrupted", 0, e);
        }
    }

    private static SortedMap<String, String> present(Map<String, String> values, java.util.Set<String> owned) {
        SortedMap<String, String> out = new java.util.TreeMap<>();
        if (values != null) {
            owned.stream().filter(values::containsKey).forEach(k -> out.put(k, values.get(k)));
        }
        return out;
    }

    /**
     * The value of label {@code key} on the node as last seen (read or watched; no request is made), or null when
     * the node has not been seen or has no such label.
     */
    public String seenLabel(String key) {
        Map<String, String> labels = seenLabels();
        return labels == null ? null : labels.get(key);
    }

    /** The node's labels as last seen (no request is made); null when the node has not been seen since the last error. */
    public Map<String, String> seenLabels() {
        Node node = view.peek();
        if (node == null) {
            return null;
        }
        return node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
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
