package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.nodelabeller.log.ProblemLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Set;

/**
 * The owner references of the NodeFeature object, from NFD's {@code core.ownerRefs} (a subset of node, pod, ds):
 * {@code pod} is the agent's own pod (env {@code POD_NAME}, {@code POD_UID}; no request), {@code ds} the DaemonSet
 * owning that pod (one GET of the pod), {@code node} the Node (one GET of the node). All with
 * {@code blockOwnerDeletion: false}, as nfd-worker sets them. Resolved at the first publish and kept; a reference
 * that cannot be resolved is left out with a warning (when the problem appears, not at every publish), and tried again at the next publish unless the API
 * refused it (4xx).
 *
 * <p>A pod reference is never set without the DaemonSet reference when both are asked for: the object would be
 * garbage-collected with every pod restart and nfd-master would remove the node's labels until the next publish
 * (NFD issue 1752, why NFD added {@code ds}).
 */
public final class OwnerRefs {

    private static final Logger LOG = LoggerFactory.getLogger(OwnerRefs.class);

    /** The agent's own pod (the downward API's {@code metadata.name} and {@code uid}); {@link #NONE} when not in a pod. */
    public record Pod(String name, String uid) {
        public static final Pod NONE = new Pod("", "");

        boolean known() {
            return !name.isEmpty() && !uid.isEmpty();
        }
    }

    private final ApiClient api;
    private final String namespace;
    private final String nodeName;
    private final List<String> wanted;
    private final Pod pod;
    /** Problems are logged when they appear (NodeFeature: ...), not at every publish. */
    private final ProblemLog problems = new ProblemLog(LOG, "NodeFeature");
    /** The problems of the resolve in progress, by kind. */
    private Map<String, String> found = new LinkedHashMap<>();
    private final Set<String> refused = new HashSet<>();
    private OwnerReference daemonSet;
    private OwnerReference node;

    OwnerRefs(ApiClient api, String namespace, String nodeName, List<String> wanted, Pod pod) {
        this.api = api;
        this.namespace = namespace;
        this.nodeName = nodeName;
        this.wanted = List.copyOf(wanted);
        this.pod = pod;
    }

    /** The references to set now, in the configured order. */
    synchronized List<OwnerReference> resolve() {
        found = new LinkedHashMap<>();
        List<OwnerReference> out = new ArrayList<>();
        for (String kind : wanted) {
            OwnerReference ref = switch (kind) {
                case "pod" -> podRef();
                case "ds" -> daemonSetRef();
                case "node" -> nodeRef();
                default -> null;
            };
            if (ref != null) {
                out.add(ref);
            }
        }
        if (wanted.contains("pod") && wanted.contains("ds") && daemonSet == null && pod.known()) {
            out.removeIf(r -> "Pod".equals(r.getKind()));
            problem("pod-without-ds", "no DaemonSet owner reference: leaving out the pod reference too, so that a"
                    + " pod restart does not garbage-collect the NodeFeature object");
        }
        problems.report(found);
        return out;
    }

    private OwnerReference podRef() {
        if (!pod.known()) {
            problem("pod", "core.ownerRefs lists pod/ds but POD_NAME or POD_UID is not set (downward API"
                    + " metadata.name / metadata.uid): no pod owner reference");
            return null;
        }
        return ref("v1", "Pod", pod.name(), pod.uid());
    }

    private OwnerReference daemonSetRef() {
        if (daemonSet != null || refused.contains("ds") || !pod.known()) {
            if (!pod.known()) {
                podRef(); // the same warning
            }
            return daemonSet;
        }
        try {
            io.fabric8.kubernetes.api.model.Pod p = api.get("/api/v1/namespaces/" + namespace + "/pods/" + pod.name(),
                    io.fabric8.kubernetes.api.model.Pod.class);
            for (OwnerReference r : p.getMetadata().getOwnerReferences()) {
                if ("DaemonSet".equals(r.getKind())) {
                    daemonSet = ref(r.getApiVersion(), r.getKind(), r.getName(), r.getUid());
                }
            }
            if (daemonSet == null) {
                refused.add("ds");
                problem("ds", "pod " + namespace + "/" + pod.name() + " has no DaemonSet owner: no ds owner reference");
            }
        } catch (ApiClient.Failure e) {
            failed("ds", "cannot read pod " + namespace + "/" + pod.name() + " for its DaemonSet", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return daemonSet;
    }

    private OwnerReference nodeRef() {
        if (node != null || refused.contains("node")) {
            return node;
        }
        try {
            io.fabric8.kubernetes.api.model.Node n = api.get("/api/v1/nodes/" + nodeName,
                    io.fabric8.kubernetes.api.model.Node.class);
            node = ref("v1", "Node", nodeName, n.getMetadata().getUid());
        } catch (ApiClient.Failure e) {
            failed("node", "cannot read node " + nodeName, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return node;
    }

    private void failed(String kind, String what, ApiClient.Failure e) {
        if (e.status >= 400 && e.status < 500) {
            refused.add(kind);
        }
        problem(kind, what + " (" + e.getMessage() + "): no " + kind + " owner reference"
                + (refused.contains(kind) ? "" : " this cycle"));
    }

    private void problem(String kind, String message) {
        found.put(kind, message);
    }

    private static OwnerReference ref(String apiVersion, String kind, String name, String uid) {
        return new OwnerReferenceBuilder().withApiVersion(apiVersion).withKind(kind).withName(name).withUid(uid)
                .withBlockOwnerDeletion(false).build();
    }
}
