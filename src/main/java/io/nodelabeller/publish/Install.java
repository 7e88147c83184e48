package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.config.Role;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.WriteScope;
import io.nodelabeller.log.ProblemLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The install an agent belongs to: its name ({@code --instance}), the tracking annotations that name keys
 * ({@link Bookkeeping}) and what it may write ({@link WriteScope}). A named install is its ClusterRoleBinding: the
 * admission policies take that object as their parameter and read the write scope from its annotations, and so does
 * the agent, so the two agree by construction. An agent that cannot read it does not publish (its policy could not
 * be the one it expects).
 *
 * <p>Outputs outside the scope are dropped before anything is sent, with one warning naming them and the setting
 * when the set of dropped keys changes (not every cycle), and one line when none is dropped any more.
 *
 * <p>Where the binding names the install's GPU agent ({@value WriteScope#GPU_AGENT}: its service account), the policies
 * let that account write only the GPU agent's labels and every other subject none of them; the agent asks the API
 * server who it is (a SelfSubjectReview) and publishes nothing while its {@code --role} is not the one its identity
 * has there, instead of sending writes the policy refuses.
 */
public final class Install {

    private static final Logger LOG = LoggerFactory.getLogger(Install.class);
    private static final String PATH = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/";
    private static final String WHO_AM_I = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

    private final Bookkeeping bookkeeping;
    private final Predicate<String> gpuLabel;
    private final Role role;
    private final ApiClient api;
    private final Retrying retrying;
    private final ProblemLog reads;
    private final ProblemLog dropped;
    private volatile WriteScope scope;

    private Install(Bookkeeping bookkeeping, WriteScope scope, Predicate<String> gpuLabel, Role role, ApiClient api,
                    Retrying retrying) {
        this.bookkeeping = bookkeeping;
        this.scope = scope;
        this.gpuLabel = gpuLabel;
        this.role = role;
        this.api = api;
        this.retrying = retrying;
        this.reads = new ProblemLog(LOG, "install " + bookkeeping.instance());
        this.dropped = new ProblemLog(LOG, null);
    }

    /** A fixed scope (tests). */
    public static Install of(Bookkeeping bookkeeping, WriteScope scope, Predicate<String> gpuLabel) {
        return new Install(bookkeeping, scope, gpuLabel, Role.ALL, null, null);
    }

    /**
     * Install {@code bookkeeping}'s outputs with no scope to check: an agent that names no install ({@code --instance}
     * unset: no ClusterRoleBinding to read, no policy of ours applies to it, it writes what its configuration
     * produces), what only removes ({@code prune}), and tests of the publishers' own behaviour.
     */
    public static Install unchecked(Bookkeeping bookkeeping) {
        return new Install(bookkeeping, null, k -> true, Role.ALL, null, null);
    }

    /**
     * Install {@code name}, of which this agent runs as {@code role}; its scope is read from its ClusterRoleBinding when
     * first needed ({@link #scope()}), so that an API server that does not answer at start delays publishing like any
     * other API error, and never the start.
     *
     * @throws IllegalArgumentException when {@code name} cannot name an install
     */
    public static Install named(KubernetesClient client, String name, Predicate<String> gpuLabel, Role role,
                                NodePublisher.Settings settings) {
        return new Install(Bookkeeping.of(name), null, gpuLabel, role,
                new ApiClient(client, settings.requestTimeout(), settings.timing()), new Retrying(settings));
    }

    private WriteScope fetch() throws PublishException {
        String subject = "ClusterRoleBinding " + bookkeeping.instance();
        Retrying.Run run = retrying.start(subject, reads, f -> { }, status -> switch (status) {
            case 404 -> " (the install's ClusterRoleBinding, named by --instance / NODE_LABELLER_INSTANCE, is missing:"
                    + " its admission policies would not apply)";
            case 403 -> " (RBAC: the install's ClusterRole grants get on its own ClusterRoleBinding, and only while that"
                    + " binding, named by --instance / NODE_LABELLER_INSTANCE, exists: without it its admission policies would"
                    + " not apply)";
            default -> "";
        });
        GenericKubernetesResource crb = run.call(() -> api.get(PATH + bookkeeping.instance(), GenericKubernetesResource.class));
        Map<String, String> annotations = crb.getMetadata().getAnnotations();
        WriteScope read;
        try {
            read = WriteScope.of(annotations, subject);
        } catch (IllegalArgumentException e) {
            reads.failed("scope", e.getMessage());
            throw new PublishException(e.getMessage(), 0, e);
        }
        String gpuAgent = read.gpuAgent();
        if (!gpuAgent.isEmpty()) {
            String user = run.call(() -> api.post(WHO_AM_I, new SelfSubjectReview(), SelfSubjectReview.class))
                    .getStatus().getUserInfo().getUsername();
            Role policed = gpuAgentSubjects(crb, gpuAgent).contains(user) ? Role.GPU : Role.HOST;
            if (policed != role) {
                String message = subject + " binds " + user + " as the install's " + policed + " agent (" + WriteScope.GPU_AGENT
                        + ": " + gpuAgent + "), and this agent runs with --role " + role + ": its admission policy would"
                        + " refuse what the " + policed + " agent may not write; nothing is published until it runs with"
                        + " --role " + policed + " (NODE_LABELLER_ROLE) or as the other agent's service account";
                reads.failed("role", message);
                throw new PublishException(message, 0, null);
            }
        }
        WriteScope.ignored(annotations).forEach(i -> LOG.warn("{}: ignored: {}", subject, i));
        LOG.info("{}: write scope: domains {}, nvidia.com keys {}, taints {}, extended resources {}{}", subject,
                read.labelDomains(), read.nvidiaKeys(), read.taints(), read.extendedResources(),
                read.deniedKeys().isEmpty() ? "" : ", denied keys " + read.deniedKeys());
        reads.ok();
        return read;
    }

    /** The usernames of the service accounts named {@code name} among the subjects of {@code crb}. */
    @SuppressWarnings("unchecked")
    static List<String> gpuAgentSubjects(GenericKubernetesResource crb, String name) {
        Object subjects = crb.getAdditionalProperties().get("subjects");
        if (!(subjects instanceof List<?> list)) {
            return List.of();
        }
        return list.stream().filter(Map.class::isInstance).map(o -> (Map<String, Object>) o)
                .filter(m -> "ServiceAccount".equals(m.get("kind")) && name.equals(m.get("name")) && m.get("namespace") != null)
                .map(m -> "system:serviceaccount:" + m.get("namespace") + ":" + name).toList();
    }

    /**
     * Reads the scope again (after the API server refused a write: someone may have changed the ClusterRoleBinding);
     * a failure keeps the scope known so far.
     */
    public void reread() {
        if (api == null) {
            return;
        }
        try {
            WriteScope read = fetch();
            scope = read;
        } catch (PublishException | RuntimeException e) {
            LOG.debug("reading the write scope again: {}", e.getMessage());
        }
    }

    /**
     * Whether this install has no GPU agent for sure: its ClusterRoleBinding names none ({@value WriteScope#GPU_AGENT}),
     * so its policy lets its one agent write every label. An install without a binding to read ({@link #unchecked})
     * may have one: false.
     */
    public boolean namesNoGpuAgent() throws PublishException {
        if (api == null) {
            return false;
        }
        return scope().gpuAgent().isEmpty();
    }

    /** Nothing to check: {@link #unchecked}. */
    private boolean unchecked() {
        return scope == null && api == null;
    }

    public Bookkeeping bookkeeping() {
        return bookkeeping;
    }

    /**
     * The write scope, read from the ClusterRoleBinding the first time (and after {@link #reread}).
     *
     * @throws PublishException when it cannot be read: nothing may be written then
     */
    public WriteScope scope() throws PublishException {
        WriteScope s = scope;
        if (s == null) {
            synchronized (this) {
                if (scope == null) {
                    scope = fetch();
                }
                s = scope;
            }
        }
        return s;
    }

    /** How many keys one write may add under this install's policy: its patterns and domains ({@link WriteBudget}). */
    public WriteBudget budget() throws PublishException {
        return unchecked() ? WriteBudget.NONE : new WriteBudget(scope().deniedKeys().stream()
                .map(com.google.re2j.Pattern::pattern).toList(), scope().labelDomains());
    }

    /** Why {@code key} of {@code kind} may not be written, or null. */
    public String problem(LabelSet.Kind kind, String key) throws PublishException {
        return unchecked() ? null : scope().problem(kind, key, gpuLabel);
    }

    /**
     * {@code set} without what the scope does not allow, each dropped output logged once (when the set of dropped
     * keys changes). A kind that was not produced stays not produced.
     */
    public LabelSet filter(LabelSet set) throws PublishException {
        Map<String, String> dropped = new TreeMap<>();
        LabelSet kept = filter(set, dropped);
        report(dropped);
        return kept;
    }

    /** As {@link #filter(LabelSet)}, adding what is dropped (output → reason) to {@code droppedSoFar}, not logging it. */
    public LabelSet filter(LabelSet set, Map<String, String> droppedSoFar) throws PublishException {
        if (unchecked()) {
            return set;
        }
        LabelSet kept = set;
        for (LabelSet.Kind kind : LabelSet.Kind.values()) {
            if (!set.produces(kind)) {
                continue;
            }
            SortedMap<String, Label> allowed = new TreeMap<>();
            for (Map.Entry<String, Label> e : set.of(kind).entrySet()) {
                String problem = problem(kind, e.getKey());
                if (problem == null) {
                    allowed.put(e.getKey(), e.getValue());
                } else {
                    droppedSoFar.put(kind + " " + e.getKey(), problem);
                }
            }
            if (allowed.size() != set.of(kind).size()) {
                kept = kept.with(kind, allowed);
            }
        }
        return kept;
    }

    /** Keys of {@code values} that may be written as {@code kind}; the others reported with {@link #filter}'s. */
    public Map<String, String> allowed(LabelSet.Kind kind, Map<String, String> values, Map<String, String> droppedSoFar)
            throws PublishException {
        if (unchecked()) {
            return new TreeMap<>(values);
        }
        WriteScope s = scope();
        Map<String, String> out = new TreeMap<>();
        values.forEach((k, v) -> {
            String problem = s.problem(kind, k, gpuLabel);
            if (problem == null) {
                out.put(k, v);
            } else {
                droppedSoFar.put(kind + " " + k, problem);
            }
        });
        return out;
    }

    /** Logs the outputs dropped now (output → reason): one warning when the set changes, one line when it empties. */
    public void report(Map<String, String> droppedNow) {
        if (droppedNow.isEmpty()) {
            dropped.ok("every output is within the write scope again");
            return;
        }
        StringBuilder line = new StringBuilder("not written, outside what this install may write: ");
        droppedNow.forEach((output, why) -> line.append(output).append(" (").append(why).append("); "));
        line.setLength(line.length() - 2);
        dropped.report(Map.of(String.join(",", droppedNow.keySet()), line.toString()));
    }
}
