package io.nodelabeller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.zjsonpatch.JsonDiff;
import io.nodelabeller.deploy.AdmissionPolicyTest.Decision;
import io.nodelabeller.deploy.AdmissionPolicyTest.Installed;
import io.nodelabeller.testing.ControlPlane;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The admission policies' judge in the tests: a real kube-apiserver ({@link ControlPlane}). {@link #admit} installs the
 * install under test (its service accounts, RBAC, ClusterRoleBinding and policies, as rendered), brings the Node (or
 * NodeFeature) to the request's old object as the cluster's administrator, then sends the change to the new object as
 * the request's user, with that user's own credentials — a service account's pod-bound token bound to a Pod on the
 * token's node, as a DaemonSet pod gets it; a kubelet's static token — and reads the server's answer.
 * <p>
 * So that the policy, not RBAC, decides, every authenticated user of this test cluster may patch and update nodes, their
 * status and NodeFeatures (a ClusterRole of the tests). A change of the install (another write scope, another policy, no
 * binding) is in force when the server says so: the install's binding carries one more denied-keys pattern, a canary
 * label unique to that install, and the change is waited for until the canary is denied (or, without a binding,
 * admitted again).
 * <p>
 * The server stops at the first validation that fails: a denial has one message. An evaluation error
 * ({@code expression '...' resulted in error}) denies too, under failurePolicy Fail, and is reported as an error.
 */
final class ServerJudge {

    private static final Map<String, ServerJudge> SHARED = new java.util.HashMap<>();

    private static final Set<String> INSTALLED_KINDS = Set.of("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
            "Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
    static final ResourceDefinitionContext NODE_FEATURES = new ResourceDefinitionContext.Builder().withGroup("nfd.k8s-sigs.io")
            .withVersion("v1alpha1").withPlural("nodefeatures").withKind("NodeFeature").withNamespaced(true).build();

    private final ControlPlane cp;
    private final Map<String, String> tokens = new HashMap<>();
    private List<HasMetadata> installed = List.of();
    private List<Probe> inForce = List.of();
    private int probes;

    private ServerJudge(ControlPlane cp) {
        this.cp = cp;
    }

    static ServerJudge shared() {
        return shared(null);
    }

    /**
     * The judge on the shared control plane of {@code emulatedVersion} (null: the newest release), one per version:
     * NFD's CRDs and the tests' writers' ClusterRole applied once.
     */
    static synchronized ServerJudge shared(String emulatedVersion) {
        ServerJudge judge = SHARED.get(String.valueOf(emulatedVersion));
        if (judge == null) {
            ControlPlane cp = ControlPlane.shared(emulatedVersion);
            List<String> refused = new ArrayList<>();
            ServerManifestsTest.applyNfdCrds(cp.admin(), refused);
            ServerManifestsTest.apply(cp.admin(), "the tests' writers", Manifests.parseAll("""
                    apiVersion: rbac.authorization.k8s.io/v1
                    kind: ClusterRole
                    metadata: {name: policy-tests-writer}
                    rules:
                      - {apiGroups: [""], resources: [nodes, nodes/status], verbs: [get, patch, update]}
                      - {apiGroups: [nfd.k8s-sigs.io], resources: [nodefeatures], verbs: [get, create, update, patch, delete]}
                    ---
                    apiVersion: rbac.authorization.k8s.io/v1
                    kind: ClusterRoleBinding
                    metadata: {name: policy-tests-writer}
                    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: policy-tests-writer}
                    subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:authenticated"}]
                    """), refused);
            if (!refused.isEmpty()) {
                throw new IllegalStateException(refused.toString());
            }
            judge = new ServerJudge(cp);
            SHARED.put(String.valueOf(emulatedVersion), judge);
        }
        return judge;
    }

    KubernetesClient admin() {
        return cp.admin();
    }

    // ---- the install ----

    /** Makes {@code install} the one in force on the server (nothing to do when it already is). */
    synchronized void install(Installed install) {
        List<HasMetadata> wanted = install.objects().stream().filter(o -> INSTALLED_KINDS.contains(o.getKind())).toList();
        if (Manifests.K8S.asJson(wanted).equals(Manifests.K8S.asJson(installed))) {
            return;
        }
        KubernetesClient admin = cp.admin();
        for (HasMetadata old : installed) {
            boolean kept = wanted.stream().anyMatch(w -> w.getKind().equals(old.getKind())
                    && w.getMetadata().getName().equals(old.getMetadata().getName()));
            if (!kept && replaced(old)) {
                admin.resource(old).delete();
            }
        }
        List<Probe> previous = inForce;
        List<Probe> next = new ArrayList<>();
        Map<String, String> canaries = new HashMap<>();
        for (HasMetadata o : wanted) {
            if (o instanceof io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding b
                    && b.getSpec().getParamRef() != null) {
                String crbName = b.getSpec().getParamRef().getName();
                ClusterRoleBinding crb = (ClusterRoleBinding) wanted.stream().filter(x -> x instanceof ClusterRoleBinding
                        && x.getMetadata().getName().equals(crbName)).findFirst().orElse(null);
                if (crb == null || crb.getSubjects().isEmpty()) {
                    continue;
                }
                boolean features = wanted.stream().anyMatch(x -> x.getMetadata().getName().equals(b.getSpec().getPolicyName())
                        && x instanceof io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy p
                        && p.getSpec().getMatchConstraints().getResourceRules().get(0).getResources().contains("nodefeatures"));
                String key = canaries.computeIfAbsent(crbName, n -> "feature.node.kubernetes.io/canary-" + (++probes));
                next.add(new Probe(key, crb.getSubjects().get(0), features, ownPrefix(crbName)));
            }
        }
        List<String> refused = new ArrayList<>();
        List<HasMetadata> applied = new ArrayList<>();
        for (HasMetadata o : wanted) {
            if (o instanceof ClusterRoleBinding b && canaries.containsKey(b.getMetadata().getName())) {
                Map<String, String> annotations = new TreeMap<>(b.getMetadata().getAnnotations() == null ? Map.of()
                        : b.getMetadata().getAnnotations());
                String denied = annotations.getOrDefault(io.nodelabeller.label.WriteScope.DENIED_KEYS, "");
                annotations.put(io.nodelabeller.label.WriteScope.DENIED_KEYS, (denied.isBlank() ? "" : denied + "\n") + "^"
                        + canaries.get(b.getMetadata().getName()).replace(".", "\\.") + "$");
                o = new ClusterRoleBindingBuilder(b).editMetadata().withAnnotations(annotations).endMetadata().build();
            }
            applied.add(o);
        }
        // the namespaces a Helm release is installed into exist before it (kubectl create namespace)
        applied.stream().map(o -> o.getMetadata().getNamespace()).filter(java.util.Objects::nonNull).distinct()
                .forEach(cp::namespace);
        // replace what is there (server-side apply would keep the annotations another install left)
        for (HasMetadata o : applied) {
            try {
                HasMetadata current = admin.resource(o).get();
                if (current != null && replaced(o)) {
                    admin.resource(o).delete();
                    admin.resource(o).waitUntilCondition(x -> x == null, 30, java.util.concurrent.TimeUnit.SECONDS);
                }
                if (current == null || replaced(o)) {
                    admin.resource(o).create();
                }
            } catch (KubernetesClientException e) {
                refused.add(o.getKind() + " " + o.getMetadata().getName() + ": " + e.getMessage());
            }
        }
        if (!refused.isEmpty()) {
            throw new IllegalStateException("the install was refused: " + refused);
        }
        installed = wanted;
        inForce = next;
        for (Probe p : next) {
            awaitCanary(p, true);
        }
        if (next.isEmpty()) {
            for (Probe p : previous) {
                awaitCanary(p, false);
            }
        }
    }

    /**
     * Whether an install change replaces {@code o}: namespaces and service accounts stay (a pod-bound token is bound to
     * a pod in one, issued for the other), everything else is the install's.
     */
    private static boolean replaced(HasMetadata o) {
        return !o.getKind().equals("Namespace") && !o.getKind().equals("ServiceAccount");
    }

    /** A write that shows an install's policy in force: its agent writes the canary key (a label, or a NodeFeature's). */
    private record Probe(String key, Subject subject, boolean nodeFeatures, String own) {
    }

    /** Until {@code probe}'s write, on a fresh node, is denied for its canary key ({@code denied}) or admitted. */
    private void awaitCanary(Probe probe, boolean denied) {
        Subject subject = probe.subject();
        String key = probe.key();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            String node = "canary-" + (++probes);
            // a service account (a group of service accounts: one of them), else a user with a static token, whose token
            // is not pod-bound: any denial by the policy then shows it in force
            String namespace = switch (subject.getKind()) {
                case "ServiceAccount" -> subject.getNamespace();
                case "Group" -> subject.getName().substring("system:serviceaccounts:".length());
                default -> "default";
            };
            String token = subject.getKind().equals("User") ? cp.staticToken(subject.getName())
                    : cp.podBoundToken(namespace, subject.getKind().equals("Group") ? "canary" : subject.getName(), node);
            boolean anyDenial = subject.getKind().equals("User");
            cp.node(node);
            try (KubernetesClient as = cp.client(token)) {
                if (probe.nodeFeatures()) {
                    resetNodeFeature(namespace, node, null);
                    as.genericKubernetesResources(NODE_FEATURES).inNamespace(namespace).resource(generic(
                            AdmissionPolicyTest.nodeFeature(node, node, Map.of(key, "x")), namespace)).create();
                } else {
                    as.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"" + key
                            + "\":\"x\"},\"annotations\":{\"" + probe.own() + "managed-labels\":\"" + key + "\"}}}");
                }
                if (!denied) {
                    return;
                }
            } catch (KubernetesClientException e) {
                if (denied && e.getMessage().contains(anyDenial ? " denied request: " : "not: " + key)) {
                    return;
                }
            }
            ControlPlane.sleep(100);
        }
        throw new IllegalStateException("the install was not in force after 30 s (canary " + key + ")\n" + cp.logs());
    }

    static String ownPrefix(String install) {
        return install.equals("node-labeller") ? "node-labeller.io/" : install + ".node-labeller.io/";
    }

    // ---- a request ----

    /** The server's verdict on {@code request} (a Node UPDATE, or a NodeFeature CREATE/UPDATE/DELETE) under {@code install}. */
    Decision admit(Installed install, Map<String, Object> request, Map<String, Object> object, Map<String, Object> oldObject) {
        install(install);
        String token = token(request);
        if (((Map<?, ?>) request.get("kind")).get("kind").equals("Node")) {
            String name = name(object);
            reset(name, oldObject);
            String sub = (String) request.get("subResource");
            return patch(token, name, sub, diff(oldObject, object, sub != null));
        }
        String namespace = (String) request.get("namespace");
        String name = (String) request.get("name");
        resetNodeFeature(namespace, name, oldObject);
        try (KubernetesClient as = cp.client(token)) {
            var resource = as.genericKubernetesResources(NODE_FEATURES).inNamespace(namespace);
            switch ((String) request.get("operation")) {
                case "CREATE" -> resource.resource(generic(object, namespace)).create();
                case "UPDATE" -> {
                    GenericKubernetesResource next = generic(object, namespace);
                    next.getMetadata().setResourceVersion(cp.admin().genericKubernetesResources(NODE_FEATURES)
                            .inNamespace(namespace).withName(name).get().getMetadata().getResourceVersion());
                    resource.resource(next).update();
                }
                case "DELETE" -> resource.withName(name).delete();
                default -> throw new IllegalArgumentException(String.valueOf(request.get("operation")));
            }
            return new Decision(List.of(), List.of());
        } catch (KubernetesClientException e) {
            return decision(e);
        }
    }

    /** {@code user} sends the RFC 6902 {@code patch} to the Node {@code name} (or its {@code subResource}). */
    Decision patch(AdmissionRequests.User user, String name, String subResource, String patch) {
        return patch(token(AdmissionRequests.nodeUpdate(name, subResource, user)), name, subResource, patch);
    }

    private Decision patch(String token, String name, String subResource, String patch) {
        try (KubernetesClient as = cp.client(token)) {
            var node = as.nodes().withName(name);
            if (subResource != null) {
                node.subresource(subResource).patch(PatchContext.of(PatchType.JSON), patch);
            } else {
                node.patch(PatchContext.of(PatchType.JSON), patch);
            }
            return new Decision(List.of(), List.of());
        } catch (KubernetesClientException e) {
            return decision(e);
        }
    }

    /** A refusal as the test harness reports it: the policy's message, or an evaluation error, or another refusal. */
    static Decision decision(KubernetesClientException e) {
        String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
        int at = message.indexOf(" denied request: ");
        if (at < 0) {
            return new Decision(List.of(), List.of("refused, not by an admission policy: HTTP " + e.getCode() + " " + message));
        }
        String reason = message.substring(at + " denied request: ".length());
        if (reason.startsWith("expression '") && reason.contains("' resulted in error: ")) {
            return new Decision(List.of(), List.of(reason));
        }
        return new Decision(List.of(reason), List.of());
    }

    /** The token of the request's user: a pod-bound service-account token on its node, or a kubelet's static token. */
    private String token(Map<String, Object> request) {
        Map<?, ?> user = (Map<?, ?>) request.get("userInfo");
        String username = (String) user.get("username");
        Map<?, ?> extra = (Map<?, ?>) user.get("extra");
        List<?> nodes = extra == null ? null : (List<?>) extra.get(AdmissionRequests.NODE_NAME_EXTRA);
        String node = nodes == null || nodes.isEmpty() ? null : (String) nodes.get(0);
        String key = username + "@" + node;
        return tokens.computeIfAbsent(key, k -> {
            if (username.startsWith("system:serviceaccount:")) {
                String[] parts = username.split(":");
                return cp.podBoundToken(parts[2], parts[3], node);
            }
            String token = cp.staticToken(username);
            if (token == null) {
                throw new IllegalArgumentException("no credentials for " + username + " in the test cluster");
            }
            return token;
        });
    }

    private static String name(Map<String, Object> object) {
        return (String) ((Map<?, ?>) object.get("metadata")).get("name");
    }

    /**
     * The Node {@code name} as the administrator leaves it: {@code old}'s labels, annotations, finalizers, owner
     * references, spec and status, and, where {@code old} has them, exactly its managedFields (a last write that changes
     * nothing else, so that the field manager adds no entry of its own). A node whose immutable spec fields
     * (podCIDR, providerID) {@code old} does not have is created anew.
     */
    @SuppressWarnings("unchecked")
    void reset(String name, Map<String, Object> old) {
        KubernetesClient admin = cp.admin();
        Map<String, Object> oldMeta = (Map<String, Object>) old.get("metadata");
        Node updated;
        try {
            updated = admin.nodes().resource(withOld(cp.node(name), old)).update();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 422) {
                throw e;
            }
            admin.nodes().withName(name).withGracePeriod(0).delete();
            admin.nodes().withName(name).waitUntilCondition(x -> x == null, 30, java.util.concurrent.TimeUnit.SECONDS);
            tokens.keySet().removeIf(k -> k.endsWith("@" + name)); // a pod-bound token names the node's uid
            updated = admin.nodes().resource(withOld(cp.node(name), old)).update();
        }
        Map<String, Object> withStatus = Kustomize.YAML.convertValue(updated, Map.class);
        withStatus.put("status", old.getOrDefault("status", Map.of()));
        updated = admin.nodes().resource(Kustomize.YAML.convertValue(withStatus, Node.class)).updateStatus();
        if (oldMeta.get("managedFields") != null) {
            Map<String, Object> fields = Kustomize.YAML.convertValue(updated, Map.class);
            ((Map<String, Object>) fields.get("metadata")).put("managedFields", oldMeta.get("managedFields"));
            admin.nodes().resource(Kustomize.YAML.convertValue(fields, Node.class)).update();
        }
    }

    @SuppressWarnings("unchecked")
    private static Node withOld(Node current, Map<String, Object> old) {
        Map<String, Object> want = Kustomize.YAML.convertValue(current, Map.class);
        Map<String, Object> meta = (Map<String, Object>) want.get("metadata");
        Map<String, Object> oldMeta = (Map<String, Object>) old.get("metadata");
        for (String field : List.of("labels", "annotations", "finalizers", "ownerReferences")) {
            meta.remove(field);
            if (oldMeta.get(field) != null) {
                meta.put(field, oldMeta.get(field));
            }
        }
        want.put("spec", old.getOrDefault("spec", Map.of()));
        return Kustomize.YAML.convertValue(want, Node.class);
    }

    /** The NodeFeature {@code namespace/name} as {@code old} (null: none). */
    private void resetNodeFeature(String namespace, String name, Map<String, Object> old) {
        cp.namespace(namespace);
        var features = cp.admin().genericKubernetesResources(NODE_FEATURES).inNamespace(namespace);
        if (features.withName(name).get() != null) {
            features.withName(name).delete();
            features.withName(name).waitUntilCondition(x -> x == null, 30, java.util.concurrent.TimeUnit.SECONDS);
        }
        if (old != null) {
            features.resource(generic(old, namespace)).create();
        }
    }

    /** {@code object} in {@code namespace} (the request's: the tests' objects say node-labeller). */
    private static GenericKubernetesResource generic(Map<String, Object> object, String namespace) {
        GenericKubernetesResource r = Kustomize.YAML.convertValue(object, GenericKubernetesResource.class);
        r.getMetadata().setNamespace(namespace);
        return r;
    }

    /**
     * RFC 6902 operations that take {@code old} to {@code next}: labels, annotations, finalizers, owner references and
     * spec (for the node itself), or labels, annotations and status (for nodes/status, which keeps the spec).
     */
    static String diff(Map<String, Object> old, Map<String, Object> next, boolean status) {
        com.fasterxml.jackson.databind.node.ArrayNode ops = (com.fasterxml.jackson.databind.node.ArrayNode)
                JsonDiff.asJson(comparable(old, status), comparable(next, status));
        // managedFields written by the request: the whole list, as a client that forges them sends it
        Object oldFields = ((Map<?, ?>) old.get("metadata")).get("managedFields");
        Object newFields = ((Map<?, ?>) next.get("metadata")).get("managedFields");
        if (newFields != null && !newFields.equals(oldFields)) {
            ops.addObject().put("op", "replace").put("path", "/metadata/managedFields")
                    .set("value", Kustomize.YAML.valueToTree(newFields));
        }
        return ops.toString();
    }

    private static JsonNode comparable(Map<String, Object> node, boolean status) {
        ObjectNode out = Kustomize.YAML.createObjectNode();
        ObjectNode meta = out.putObject("metadata");
        Map<?, ?> m = (Map<?, ?>) node.get("metadata");
        for (String field : List.of("labels", "annotations", "finalizers", "ownerReferences")) {
            if (m.get(field) != null) {
                meta.set(field, Kustomize.YAML.valueToTree(m.get(field)));
            }
        }
        String part = status ? "status" : "spec";
        if (node.get(part) != null) {
            out.set(part, Kustomize.YAML.valueToTree(node.get(part)));
        }
        return out;
    }

    /** The node as the server has it, as a map (for the next step of a test). */
    @SuppressWarnings("unchecked")
    Map<String, Object> node(String name) {
        return Kustomize.YAML.convertValue(cp.admin().nodes().withName(name).get(), LinkedHashMap.class);
    }

    ControlPlane controlPlane() {
        return cp;
    }
}
