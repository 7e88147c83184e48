package io.nodelabeller.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.nodelabeller.deploy.AdmissionRequests.User;
import io.nodelabeller.publish.NodePatch;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped ValidatingAdmissionPolicies judged by a real kube-apiserver ({@link ServerJudge}): the install is created
 * on the server as rendered, the node brought to the request's old object by the administrator, and the change sent by
 * the request's user with its own credentials (the agent: a pod-bound service-account token, as its DaemonSet pod gets
 * it). A case is written as the request the policy sees ({@link AdmissionRequests}), the old and the new object; the
 * server's answer says admitted, denied by a validation (its message), or refused by an evaluation error, which
 * {@link Decision} keeps apart, so no case passes only because an expression failed.
 * <p>
 * An attack is a sequence of writes a compromised agent may try, each step seeing the previous step's result as
 * {@code oldObject}; the agent's own writes are the patches {@link NodePatch} computes, sent as the agent sends them.
 */
class AdmissionPolicyTest {

    /** A policy as installed: the policy, its binding, and the objects installed with it (where its parameter is). */
    record Installed(ValidatingAdmissionPolicy policy, ValidatingAdmissionPolicyBinding binding, List<HasMetadata> objects) {

        /** The install's ClusterRoleBinding: the policy's parameter, whose annotations are the write scope. */
        io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding crb() {
            return Manifests.one(objects, io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class,
                    binding.getSpec().getParamRef().getName());
        }

        /** The same install with its ClusterRoleBinding's annotations (the write scope) replaced by {@code annotations}. */
        Installed withScope(Map<String, String> annotations) {
            List<HasMetadata> copy = new ArrayList<>();
            for (HasMetadata o : objects) {
                if (o == crb()) {
                    var edited = new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder(crb()).editMetadata()
                            .withAnnotations(new java.util.TreeMap<>(annotations)).endMetadata().build();
                    copy.add(edited);
                } else {
                    copy.add(o);
                }
            }
            return new Installed(policy, binding, copy);
        }

        /** The policy of {@code objects} (and its binding) whose name contains {@code part}. */
        static Installed of(List<HasMetadata> objects, String part) {
            ValidatingAdmissionPolicy p = Manifests.ofKind(objects, ValidatingAdmissionPolicy.class).stream()
                    .filter(v -> v.getMetadata().getName().contains(part)).findFirst().orElseThrow();
            ValidatingAdmissionPolicyBinding b = Manifests.ofKind(objects, ValidatingAdmissionPolicyBinding.class).stream()
                    .filter(v -> v.getSpec().getPolicyName().equals(p.getMetadata().getName())).findFirst().orElseThrow();
            return new Installed(p, b, objects);
        }
    }

    static final Installed BASE = Installed.of(Manifests.render("base"), "own-node-labels");

    static Installed base() {
        return BASE;
    }
    /** The policy of overlays/taints-and-extended-resources: taints and extended resources allowed. */
    static final Installed WITH_TAINTS_AND_RESOURCES = Installed.of(Manifests.render("overlays/taints-and-extended-resources"),
            "own-node-labels");
    static final Installed NODE_FEATURE = Installed.of(Manifests.render("overlays/nfd-compat"), "own-nodefeature");
    static final User AGENT = User.serviceAccount("node-labeller", "node-labeller", "n1");
    static final User AGENT_UNBOUND = User.serviceAccount("node-labeller", "node-labeller", null);
    /** overlays/gpu: two agents of one install, the GPU agent's service account named by its binding. */
    static final Installed TWO_AGENTS = Installed.of(Manifests.render("overlays/gpu"), "own-node-labels");
    /** The GPU agent of {@link #TWO_AGENTS} and of {@link #NODE_FEATURE}, bound to n1. */
    static final User GPU_AGENT = User.serviceAccount("node-labeller", "node-labeller-gpu", "n1");

    private static final String NODE = """
            metadata:
              name: n1
              uid: 8c0b4f0e-1f7e-4d7b-9d0a-3e6f2a1b5c44
              resourceVersion: "81234"
              creationTimestamp: "2026-11-01T08:00:00Z"
              labels:
                kubernetes.io/hostname: n1
                feature.node.kubernetes.io/kernel-version.major: "6"
                feature.node.kubernetes.io/pci-0300_1af4.present: "true"
              annotations:
                node-labeller.io/managed-labels: feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present
                volumes.kubernetes.io/controller-managed-attach-detach: "true"
            spec:
              taints:
                - {key: nvidia.com/gpu, effect: NoSchedule}
            status:
              capacity: {cpu: "8", nvidia.com/gpu: "8"}
              allocatable: {cpu: "7800m", nvidia.com/gpu: "8"}
              daemonEndpoints: {kubeletEndpoint: {Port: 10250}}
              volumesInUse: [kubernetes.io/csi/ebs.csi.aws.com^vol-0a1b2c3d]
              volumesAttached: [{name: kubernetes.io/csi/ebs.csi.aws.com^vol-0a1b2c3d, devicePath: ""}]
              conditions:
                - {type: Ready, status: "True", reason: KubeletReady}
              nodeInfo: {kubeletVersion: v1.34.2, containerRuntimeVersion: "containerd://2.1.4"}
            """;

    /**
     * What the API server decided: admitted (both lists empty), or refused — by a validation that evaluated to false
     * (its message; the server stops at the first), or by an evaluation error (which rejects the request under
     * failurePolicy Fail), or by anything else (RBAC, the object's validation), reported as an error.
     */
    record Decision(List<String> denials, List<String> errors) {
        boolean allowed() {
            return denials.isEmpty() && errors.isEmpty();
        }
    }

    static Decision admit(Map<String, Object> request, Map<String, Object> object, Map<String, Object> oldObject) {
        return admit(BASE, request, object, oldObject);
    }

    /**
     * The real API server's verdict ({@link ServerJudge}) on {@code request} under {@code installed}. {@code object} is
     * null for a DELETE, {@code oldObject} for a CREATE, as the API server passes them.
     */
    static Decision admit(Installed installed, Map<String, Object> request, Map<String, Object> object,
                          Map<String, Object> oldObject) {
        return ServerJudge.shared().admit(installed, request, object, oldObject);
    }

    static Map<String, Object> node(Consumer<Map<String, Object>> change) {
        try {
            Map<String, Object> n = Kustomize.YAML.readValue(NODE, new TypeReference<Map<String, Object>>() { });
            change.accept(n);
            return n;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> n, String key) {
        return (Map<String, Object>) n.computeIfAbsent(key, k -> new LinkedHashMap<>());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> copy(Map<String, Object> n) {
        return Kustomize.YAML.convertValue(n, Map.class);
    }

    static Decision agentUpdates(Consumer<Map<String, Object>> change) {
        return admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), node(change), node(n -> { }));
    }

    static Consumer<Map<String, Object>> label(String key, String value) {
        return entry("labels", key, value);
    }

    static Consumer<Map<String, Object>> annotation(String key, String value) {
        return entry("annotations", key, value);
    }

    private static Consumer<Map<String, Object>> entry(String mapName, String key, String value) {
        return n -> {
            Map<String, Object> m = map(map(n, "metadata"), mapName);
            if (value == null) {
                m.remove(key);
            } else {
                m.put(key, value);
            }
        };
    }

    static Consumer<Map<String, Object>> managed(String keys) {
        return annotation(NodePatch.MANAGED_ANNOTATION, keys);
    }

    static void assertAllowed(Decision d) {
        assertEquals(List.of(), d.errors(), "evaluation errors (an error denies under failurePolicy Fail)");
        assertEquals(List.of(), d.denials());
    }

    /** Denied by a validation evaluating to false (not by an error), with a message containing {@code text}. */
    static void assertDenied(Decision d, String text) {
        assertEquals(List.of(), d.errors(), "denied by an evaluation error instead of a validation");
        assertTrue(d.denials().stream().anyMatch(m -> m.contains(text)), "no denial says '" + text + "': " + d.denials());
    }

    /**
     * A sequence of writes by {@code user} from {@code start}, each step a change of the previous step's result
     * (written to {@code subResource}: null or "status"); stops at the first denied step and returns its decision, or
     * null when every step was admitted.
     */
    @SafeVarargs
    static Decision attack(Installed policy, User user, Map<String, Object> start, Step... steps) {
        Map<String, Object> current = start;
        for (Step step : steps) {
            Map<String, Object> next = copy(current);
            step.change().accept(next);
            Decision d = admit(policy, AdmissionRequests.nodeUpdate("n1", step.subResource(), user), next, current);
            if (!d.allowed()) {
                return d;
            }
            current = next;
        }
        return null;
    }

    /** One write of an attack: a change of the node, to the node itself (null) or to {@code status}. */
    record Step(String subResource, Consumer<Map<String, Object>> change) {
        static Step node(Consumer<Map<String, Object>> change) {
            return new Step(null, change);
        }

        static Step status(Consumer<Map<String, Object>> change) {
            return new Step("status", change);
        }
    }

    /** The attack is stopped by a validation (not an error) whose message contains {@code text}. */
    @SafeVarargs
    static void assertStopped(String text, Installed policy, Map<String, Object> start, Step... steps) {
        Decision d = attack(policy, AGENT, start, steps);
        assertTrue(d != null, "every step was admitted");
        assertDenied(d, text);
    }

    // ---- the agent's own writes: NodePatch's patches, applied as the API server applies them ----

    /** What NodePatch needs of a node map. */
    @SuppressWarnings("unchecked")
    static NodePatch.Node asPatchNode(Map<String, Object> n) {
        Map<String, Object> meta = (Map<String, Object>) n.get("metadata");
        Map<String, Object> spec = (Map<String, Object>) n.getOrDefault("spec", Map.of());
        Map<String, Object> status = (Map<String, Object>) n.getOrDefault("status", Map.of());
        return new NodePatch.Node((Map<String, String>) meta.get("labels"), (Map<String, String>) meta.get("annotations"),
                (String) meta.get("resourceVersion"), (List<Map<String, Object>>) spec.get("taints"),
                (Map<String, String>) status.get("capacity"), (Map<String, String>) status.get("allocatable"));
    }

    /**
     * The agent brings {@code node} to {@code desired} as NodePublisher does (the node patch, then the status patch,
     * each computed on the result of the previous one, until nothing is left to do); every write must be admitted
     * by {@code policy}. Returns the resulting node.
     */
    static Map<String, Object> agentWrites(Installed policy, Map<String, Object> node, NodePatch.Desired desired) {
        return agentWrites(policy, AGENT, io.nodelabeller.publish.Bookkeeping.DEFAULT, node, desired);
    }

    /**
     * As above, for the agent {@code user} of the install whose tracking annotations are {@code bk}; each write's
     * managedFields as the API server's field manager records them ({@link FieldManager}) before admission.
     */
    static Map<String, Object> agentWrites(Installed policy, User user, io.nodelabeller.publish.Bookkeeping bk,
                                           Map<String, Object> node, NodePatch.Desired desired) {
        return agentWrites(ServerJudge.shared(), policy, user, bk, node, desired);
    }

    /** As above, judged by {@code judge} (another release's server). */
    static Map<String, Object> agentWrites(ServerJudge judge, Installed policy, User user,
                                           io.nodelabeller.publish.Bookkeeping bk, Map<String, Object> node,
                                           NodePatch.Desired desired) {
        judge.install(policy);
        String name = (String) ((Map<?, ?>) node.get("metadata")).get("name");
        judge.reset(name, node);
        Map<String, Object> current = judge.node(name);
        for (int i = 0; i < 6; i++) {
            NodePatch.Plan plan = NodePatch.plan(asPatchNode(current), desired, bk);
            if (plan.isEmpty()) {
                return current;
            }
            boolean status = plan.node().isEmpty();
            assertAllowed(judge.patch(user, name, status ? "status" : null, io.nodelabeller.publish.NodePublisher.json(status ? plan.status() : plan.node())));
            current = judge.node(name);
        }
        throw new AssertionError("the agent did not converge: " + NodePatch.plan(asPatchNode(current), desired, bk));
    }

    static SortedMap<String, String> m(String... kv) {
        SortedMap<String, String> out = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put(kv[i], kv[i + 1]);
        }
        return out;
    }

    // ---- who: this install's agent, exactly ----

    @Test
    void theAgentOfThisInstallIsPolicedAndNobodyElse() {
        // a write the policy denies its agent: everybody else may send it (every user of the test cluster may patch nodes)
        Map<String, Object> change = node(label("example.com/x", "1").andThen(managed(OWNED + ",example.com/x")));
        assertDenied(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), change, node(n -> { })), "not: example.com/x");
        for (User other : List.of(User.kubelet("n1"), User.serviceAccount("kube-system", "default", "n1"),
                User.serviceAccount("gpu-operator", "nvidia-gpu-feature-discovery", "n1"),
                // the AMD GPU Operator's own labeller (ROCm/gpu-operator names its account so)
                User.serviceAccount("kube-amd-gpu", "amd-gpu-operator-node-labeller", "n1"),
                // the same name in another namespace, and a longer name in this one
                User.serviceAccount("kube-system", "node-labeller", "n1"),
                User.serviceAccount("node-labeller", "node-labeller-prod", "n1"),
                // the GPU agent's account, where the install has none (the base)
                User.serviceAccount("node-labeller", "node-labeller-gpu", "n1"))) {
            assertTrue(admit(AdmissionRequests.nodeUpdate("n1", null, other), change, node(n -> { })).allowed(), other.username());
        }
    }

    /**
     * A user's overlay that moves the install to another namespace and renames it (namePrefix, nameSuffix), rendered by
     * real kustomize: the binding's parameter follows the renamed ClusterRoleBinding (the base's kustomizeconfig.yaml),
     * whose subject follows the account, so the policy polices exactly the renamed agent — the NodeFeature policy too.
     */
    @Test
    void aRenamedAndMovedInstallPolicesExactlyItsAgent() throws Exception {
        Installed renamed = Installed.of(ManifestsTest.renderWithKubectl("../src/test/resources/kustomize/renamed"), "own-node-labels");
        User agent = User.serviceAccount("gpu-system", "prod-node-labeller-a", "n1");
        Map<String, Object> change = node(label("example.com/x", "1"));
        assertDenied(admit(renamed, AdmissionRequests.nodeUpdate("n1", null, agent), change, node(n -> { })), "not: example.com/x");
        for (User other : List.of(AGENT, User.serviceAccount("gpu-system", "node-labeller", "n1"),
                User.serviceAccount("node-labeller", "prod-node-labeller-a", "n1"))) {
            assertTrue(admit(renamed, AdmissionRequests.nodeUpdate("n1", null, other), change, node(n -> { })).allowed(), other.username());
        }
        Installed nodeFeature = Installed.of(ManifestsTest.renderWithKubectl("../src/test/resources/kustomize/renamed-nfd-compat"),
                "own-nodefeature");
        Map<String, Object> squat = nodeFeature("n2", "n1");
        assertDenied(admit(nodeFeature, AdmissionRequests.nodeFeature("CREATE", "n2", "gpu-system", agent), squat, null), "not n2");
        assertTrue(admit(nodeFeature, AdmissionRequests.nodeFeature("CREATE", "n2", "gpu-system", AGENT), squat, null).allowed());
    }

    /** AMD's labeller writes amd.com labels on its node with the default manifests installed. */
    @Test
    void anotherVendorsLabellerIsNotDenied() {
        User amd = User.serviceAccount("kube-amd-gpu", "amd-gpu-operator-node-labeller", "n1");
        assertTrue(admit(AdmissionRequests.nodeUpdate("n1", null, amd), node(label("amd.com/gpu.family", "AI")), node(n -> { }))
                .allowed());
    }

    /**
     * Without its ClusterRoleBinding the agent has no permission, and the policy, no parameter, does not apply: in this
     * test cluster, where every user may patch nodes, the write the policy would deny is admitted.
     */
    @Test
    void withoutTheBindingThereIsNothingToPolice() {
        Installed unbound = new Installed(BASE.policy(), BASE.binding(),
                BASE.objects().stream().filter(o -> !o.getKind().equals("ClusterRoleBinding")).toList());
        assertTrue(admit(unbound, AdmissionRequests.nodeUpdate("n1", null, AGENT), node(label("x.io/y", "z")), node(n -> { }))
                .allowed());
        assertEquals(BASE.binding().getSpec().getParamRef().getName(), Manifests.ofKind(BASE.objects(),
                io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class).get(0).getMetadata().getName(),
                "the binding's parameter is the ClusterRoleBinding that grants the agent its permissions");
        assertEquals("Allow", BASE.binding().getSpec().getParamRef().getParameterNotFoundAction());
    }

    // ---- where: only its own node ----

    @Test
    void anotherNodeIsDenied() {
        assertDenied(agentUpdates(n -> map(n, "metadata").put("name", "n2")), "token is bound to (n1), not n2");
        assertEquals(1, agentUpdates(n -> map(n, "metadata").put("name", "n2")).denials().size());
    }

    @Test
    void aTokenNotBoundToANodeIsDeniedWithItsOwnMessage() {
        assertDenied(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT_UNBOUND), node(label("nvidia.com/gpu.count", "1")),
                node(n -> { })), "none: not a pod-bound token");
    }

    // ---- the agent's own writes pass ----

    @Test
    void addingChangingAndRemovingOwnedLabelsIsAllowed() {
        String owned = "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present";
        assertAllowed(agentUpdates(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB").andThen(managed(owned + ",nvidia.com/gpu.product"))));
        assertAllowed(agentUpdates(label("feature.node.kubernetes.io/kernel-version.major", "7")));
        assertAllowed(agentUpdates(label("feature.node.kubernetes.io/pci-0300_1af4.present", null)
                .andThen(managed("feature.node.kubernetes.io/kernel-version.major"))));
        assertAllowed(agentUpdates(label("sub.feature.node.kubernetes.io/x", "y").andThen(managed(owned + ",sub.feature.node.kubernetes.io/x"))));
        assertAllowed(agentUpdates(n -> { }));
    }

    /** The first labelling of a bare node, every kind of output, through NodePatch: each write admitted. */
    @Test
    void theAgentsFirstLabellingAndItsRemovalOfEverythingPass() {
        Map<String, Object> bare = node(n -> {
            map(n, "metadata").remove("labels");
            map(n, "metadata").remove("annotations");
        });
        NodePatch.Desired desired = new NodePatch.Desired(
                m("nvidia.com/gpu.present", "true", "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/mig-1g.10gb.count", "7",
                        "feature.node.kubernetes.io/pci-10de.present", "true", "feature.node.kubernetes.io/rack", "r12"),
                m("feature.node.kubernetes.io/owner", "team-a"),
                m("feature.node.kubernetes.io/dedicated:NoSchedule", "gpu"),
                m("feature.node.kubernetes.io/widgets", "4"));
        Map<String, Object> labelled = agentWrites(WITH_TAINTS_AND_RESOURCES, bare, desired);
        assertEquals("4", ((Map<?, ?>) ((Map<?, ?>) labelled.get("status")).get("capacity")).get("feature.node.kubernetes.io/widgets"));
        assertEquals("feature.node.kubernetes.io/widgets",
                ((Map<?, ?>) ((Map<?, ?>) labelled.get("metadata")).get("annotations")).get(NodePatch.MANAGED_EXTENDED_RESOURCES),
                "listed in the status patch that wrote it");
        Map<String, Object> pruned = agentWrites(WITH_TAINTS_AND_RESOURCES, labelled, NodePatch.Desired.nothing());
        assertEquals(node(n -> { }).get("spec"), pruned.get("spec"), "its taint gone, the other component's kept");
        assertFalse(((Map<?, ?>) ((Map<?, ?>) pruned.get("status")).get("capacity")).containsKey("feature.node.kubernetes.io/widgets"));
        // labels only, with the base policy (taints and extended resources switched off there)
        Map<String, Object> labelsOnly = agentWrites(BASE, bare, NodePatch.Desired.labels(desired.labels()));
        agentWrites(BASE, labelsOnly, NodePatch.Desired.labels(new TreeMap<>()));
    }

    /**
     * The documented migration: while nfd-master runs, it lists NFD's and GFD's labels (GFD's arrive through NFD), its
     * rules' annotations, taints and extended resources as its own; the agent takes them over (listed first, values
     * next), and then owns them.
     */
    @Test
    void theMigrationTakesOverWhatNfdMasterHandsOver() {
        Map<String, Object> nfdNode = node(label("feature.node.kubernetes.io/cpu-model.vendor_id", "AMD")
                .andThen(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"))
                .andThen(annotation("feature.node.kubernetes.io/owner", "team-a"))
                .andThen(annotation(NodePatch.NFD_LABELS, "cpu-model.vendor_id,kernel-version.major,nvidia.com/gpu.product"))
                .andThen(annotation(NodePatch.NFD_ANNOTATIONS, "owner"))
                .andThen(annotation(NodePatch.NFD_TAINTS, "feature.node.kubernetes.io/special=true:PreferNoSchedule"))
                .andThen(annotation(NodePatch.NFD_EXTENDED_RESOURCES, "widgets"))
                .andThen(n -> {
                    map(map(n, "metadata"), "annotations").remove(NodePatch.MANAGED_ANNOTATION);
                    List<Object> taints = new ArrayList<>((List<?>) map(n, "spec").get("taints"));
                    taints.add(Map.of("key", "feature.node.kubernetes.io/special", "value", "true", "effect", "PreferNoSchedule"));
                    map(n, "spec").put("taints", taints);
                    map(map(n, "status"), "capacity").put("feature.node.kubernetes.io/widgets", "2");
                    map(map(n, "status"), "allocatable").put("feature.node.kubernetes.io/widgets", "2");
                }));
        NodePatch.Desired desired = new NodePatch.Desired(
                m("feature.node.kubernetes.io/cpu-model.vendor_id", "AMD", "feature.node.kubernetes.io/kernel-version.major", "6",
                        "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"),
                m("feature.node.kubernetes.io/owner", "team-b"),
                m("feature.node.kubernetes.io/special:PreferNoSchedule", "false"),
                m("feature.node.kubernetes.io/widgets", "4"));
        Map<String, Object> after = agentWrites(WITH_TAINTS_AND_RESOURCES, nfdNode, desired);
        Map<?, ?> labels = (Map<?, ?>) ((Map<?, ?>) after.get("metadata")).get("labels");
        assertEquals("NVIDIA-A100-SXM4-80GB", labels.get("nvidia.com/gpu.product"), "GFD's label taken over through NFD");
        assertEquals("team-b", ((Map<?, ?>) ((Map<?, ?>) after.get("metadata")).get("annotations")).get("feature.node.kubernetes.io/owner"));
        assertEquals("4", ((Map<?, ?>) ((Map<?, ?>) after.get("status")).get("capacity")).get("feature.node.kubernetes.io/widgets"));
        assertTrue(after.get("spec").toString().contains("value=false"), after.get("spec").toString());
    }

    // ---- attacks: claim, then change ----

    /** The node as GFD/NFD and the GPU Operator leave it, with one label of ours. */
    static Map<String, Object> gpuNode() {
        return node(label("nvidia.com/gpu.deploy.driver", "true").andThen(label("nvidia.com/gpu.deploy.operands", "true"))
                .andThen(label("nvidia.com/mig.config", "all-disabled"))
                .andThen(label("nvidia.com/cc.mode", "on"))
                .andThen(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"))
                .andThen(label("network.nvidia.com/operator.mofed.wait", "true"))
                .andThen(label("feature.node.kubernetes.io/team.example.com-rack", "r12"))
                .andThen(label("feature.node.kubernetes.io/cpu-model.vendor_id", "AMD"))
                .andThen(annotation(NodePatch.NFD_LABELS, "cpu-model.vendor_id")));
    }

    static final String OWNED = "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present";

    /** Claiming an existing key that is not nfd-master's, then changing it: the claim is denied. */
    @Test
    void anotherWritersLabelCannotBeClaimedThenChanged() {
        // an admin's confidential-computing switch, which the GPU Operator's CC manager acts on
        assertStopped("not: nvidia.com/cc.mode", BASE, gpuNode(),
                Step.node(managed(OWNED + ",nvidia.com/cc.mode")), Step.node(label("nvidia.com/cc.mode", "off")));
        // GFD's product label (GFD standalone, not through NFD), rewritten
        assertStopped("or one nfd-master lists as its own (nfd.node.kubernetes.io/feature-labels), and never one another install lists, not: nvidia.com/gpu.product",
                BASE, gpuNode(), Step.node(managed(OWNED + ",nvidia.com/gpu.product")),
                Step.node(label("nvidia.com/gpu.product", "Fake")));
        // another team's label in NFD's own namespace, removed
        assertStopped("not: feature.node.kubernetes.io/team.example.com-rack", BASE, gpuNode(),
                Step.node(managed(OWNED + ",feature.node.kubernetes.io/team.example.com-rack")),
                Step.node(label("feature.node.kubernetes.io/team.example.com-rack", null)));
        // the vGPU Device Manager's config, set in one patch
        assertStopped("not: nvidia.com/vgpu.config", BASE, gpuNode(),
                Step.node(label("nvidia.com/vgpu.config", "A100-4C").andThen(managed(OWNED + ",nvidia.com/vgpu.config"))));
        // the Network Operator's gate, a subdomain of nvidia.com, taken over in two
        assertStopped("not: network.nvidia.com/operator.mofed.wait", BASE, gpuNode(),
                Step.node(managed(OWNED + ",network.nvidia.com/operator.mofed.wait")),
                Step.node(label("network.nvidia.com/operator.mofed.wait", "false")));
        // claiming a key before it exists, to own what another writer sets later
        assertStopped("only in the patch that creates it", BASE, gpuNode(), Step.node(managed(OWNED + ",nvidia.com/gpu.count")));
    }

    @Test
    void controlKeysOfOtherComponentsAreNeverWrittenOrOwned() {
        for (String key : List.of("nvidia.com/gpu.deploy.driver", "nvidia.com/gpu.deploy.operands", "nvidia.com/mig.config",
                "nvidia.com/device-plugin.config", "nvidia.com/gpu.workload.config", "nvidia.com/gpu-driver-upgrade-state",
                "feature.node.kubernetes.io/Upgrade-now")) {
            assertStopped("not: " + key, BASE, gpuNode(), Step.node(label(key, "x").andThen(managed(OWNED + "," + key))));
            assertStopped("not: " + key, BASE, gpuNode(), Step.node(managed(OWNED + "," + key)));
        }
        // nfd-master's label is handed over, but only within the allowlist: its control-key-looking labels stay out
        assertStopped("not: nvidia.com/gpu.deploy.driver", BASE, node(label("nvidia.com/gpu.deploy.driver", "true")
                        .andThen(annotation(NodePatch.NFD_LABELS, "nvidia.com/gpu.deploy.driver"))),
                Step.node(managed(OWNED + ",nvidia.com/gpu.deploy.driver")));
    }

    /**
     * The agent's judges (its label validity, then its install's write scope, read from the same ClusterRoleBinding
     * the policy reads) and the policy agree on every key: the agent never sends a write the policy denies for its
     * key, and writes every key the policy allows. With the shipped scope and with one that adds a domain, nvidia.com
     * keys, a denied pattern, a reserved domain and control keys (which neither takes).
     */
    @Test
    void theAgentAndThePolicyAgreeOnWhatMayBeWritten() {
        io.nodelabeller.label.LabelValidity validity = io.nodelabeller.catalog.Catalog.labelValidity(
                io.nodelabeller.config.Config.DEFAULT.core());
        List<io.nodelabeller.label.LabelDoc> docs = io.nodelabeller.catalog.Catalog.gpuLabels();
        java.util.function.Predicate<String> gpuLabel = k -> docs.stream().anyMatch(d -> d.matches(k));
        List<String> keys = List.of("nvidia.com/gpu.product", "nvidia.com/mig-1g.10gb.count", "nvidia.com/mig-3g.40gb.engines.copy",
                "nvidia.com/gpu.model.NVIDIA-A100-SXM4-80GB.count", "nvidia.com/gds.capable", "nvidia.com/peermem.capable",
                "nvidia.com/gdrcopy.capable", "nvidia.com/fabric.capable", "nvidia.com/gpu.deploy.driver", "nvidia.com/mig.config.state",
                "nvidia.com/device-plugin.config", "nvidia.com/gpu.workload.config", "nvidia.com/gpu-driver-upgrade-state",
                "nvidia.com/cc.mode", "nvidia.com/cc.mode.state", "nvidia.com/vgpu.config", "network.nvidia.com/operator.mofed.wait",
                "nvidia.com/gpu.product.x", "feature.node.kubernetes.io/cpu-model.id", "sub.feature.node.kubernetes.io/x",
                "profile.node.kubernetes.io/gpu-workstation", "feature.node.kubernetes.io/Upgrade", "example.com/rack",
                "team.example.com/rack", "example.org/x", "vendor.example.com/accelerator", "sgx.intel.com/epc",
                "node-labeller.io/x", "kubernetes.io/hostname", "node-role.kubernetes.io/gpu", "feature.node.kubernetes.io/secret-x",
                "evilnvidia.com/x", "nvidia.com.evil.io/x", "node-restriction.kubernetes.io/x", "example.io/x",
                "team-a.node-labeller.io/managed-labels", "node.kubernetes.io/unschedulable", "x.k8s.io/y");
        Map<String, String> wider = new java.util.HashMap<>(base().crb().getMetadata().getAnnotations());
        wider.put(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "example.com, *.intel.com,nvidia.com,k8s.io");
        wider.put(io.nodelabeller.label.WriteScope.NVIDIA_KEYS, "nvidia.com/fabric.capable,nvidia.com/gpu.deploy.driver,"
                + "nvidia.com/cc.mode,network.nvidia.com/x");
        wider.put(io.nodelabeller.label.WriteScope.DENIED_KEYS, "secret\n^team\\.");
        // a parent of reserved domains: it opens its other subdomains, never a reserved one
        Map<String, String> parents = new java.util.HashMap<>(base().crb().getMetadata().getAnnotations());
        parents.put(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "io, *.com");
        // each install in force once (the keys of one scope together): an install changes on the server in about a second
        for (Map<String, String> annotations : List.of(base().crb().getMetadata().getAnnotations(), wider, parents)) {
            Installed policy = BASE.withScope(annotations);
            io.nodelabeller.label.WriteScope scope = io.nodelabeller.label.WriteScope.of(annotations, "ClusterRoleBinding node-labeller");
            for (String key : keys) {
                boolean policyAllows = admit(policy, AdmissionRequests.nodeUpdate("n1", null, AGENT),
                        node(label(key, "x").andThen(managed(OWNED + "," + key))), node(n -> { })).allowed();
                boolean agentWrites = validity.problem(key, "x") == null
                        && scope.problem(io.nodelabeller.label.LabelSet.Kind.LABEL, key, gpuLabel) == null;
                assertEquals(policyAllows, agentWrites, key + " with " + annotations);
            }
        }
        for (Map<String, String> annotations : List.of(base().crb().getMetadata().getAnnotations(), wider, parents)) {
            for (String key : keys) {
                for (io.nodelabeller.label.LabelSet.Kind kind : List.of(io.nodelabeller.label.LabelSet.Kind.ANNOTATION,
                        io.nodelabeller.label.LabelSet.Kind.EXTENDED_RESOURCE)) {
                    String list = kind == io.nodelabeller.label.LabelSet.Kind.ANNOTATION ? NodePatch.MANAGED_ANNOTATIONS
                            : NodePatch.MANAGED_EXTENDED_RESOURCES;
                    Consumer<Map<String, Object>> write = kind == io.nodelabeller.label.LabelSet.Kind.ANNOTATION
                            ? annotation(key, "x").andThen(annotation(list, key))
                            : annotation(list, key).andThen(n -> map(map(n, "status"), "capacity").put(key, "1"))
                                    .andThen(n -> map(map(n, "status"), "allocatable").put(key, "1"));
                    Installed outputs = WITH_TAINTS_AND_RESOURCES.withScope(withOutputs(annotations));
                    boolean allows = admit(outputs, AdmissionRequests.nodeUpdate("n1",
                            kind == io.nodelabeller.label.LabelSet.Kind.ANNOTATION ? null : "status", AGENT),
                            node(write), node(n -> { })).allowed();
                    boolean writes = validity.problem(kind, key, kind == io.nodelabeller.label.LabelSet.Kind.ANNOTATION ? "x" : "1") == null
                            && io.nodelabeller.label.WriteScope.of(withOutputs(annotations), "x").problem(kind, key, gpuLabel) == null;
                    assertEquals(allows, writes, kind + " " + key + " with " + annotations);
                }
            }
        }
        // every GPU label the agent documents is on the policy's list, and the list holds nothing else
        for (io.nodelabeller.label.LabelDoc doc : docs) {
            String key = doc.exampleKey();
            assertTrue(agentUpdates(label(key, "x").andThen(managed(OWNED + "," + key))).allowed(), key);
        }
        for (Installed policy : List.of(BASE, NODE_FEATURE)) {
            String literal = policy.policy().getSpec().getVariables().stream().filter(v -> v.getName().equals("gpuLabels"))
                    .findFirst().orElseThrow().getExpression();
            Map<String, Boolean> listed = new TreeMap<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("'(nvidia\\.com/[^']+)': true").matcher(literal);
            while (m.find()) {
                listed.put(m.group(1), true);
            }
            for (Object key : listed.keySet()) {
                assertTrue(docs.stream().anyMatch(d -> !d.key().contains("<") && d.key().equals(key)), key + " is not a documented GPU label");
            }
            assertEquals(docs.stream().filter(d -> !d.key().contains("<")).count(), listed.size());
        }
    }

    /** {@code annotations} with taints and extended resources switched on. */
    private static Map<String, String> withOutputs(Map<String, String> annotations) {
        Map<String, String> out = new java.util.HashMap<>(annotations);
        out.put(io.nodelabeller.label.WriteScope.TAINTS, "true");
        out.put(io.nodelabeller.label.WriteScope.EXTENDED_RESOURCES, "true");
        return out;
    }

    /**
     * A write scope that names a parent domain ({@code io}, {@code *.com}) opens that domain's other subdomains, never
     * a reserved one: the policy checks each key's own domain, as the agent does. Labels, annotations, another
     * install's tracking annotation, taints and a NodeFeature's labels.
     */
    @Test
    void aParentDomainInTheScopeOpensNoReservedDomain() {
        Map<String, String> parents = new java.util.HashMap<>(withOutputs(base().crb().getMetadata().getAnnotations()));
        parents.put(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "io, *.com");
        Installed policy = WITH_TAINTS_AND_RESOURCES.withScope(parents);
        for (String key : List.of("node-restriction.kubernetes.io/x", "node-role.kubernetes.io/gpu", "network.nvidia.com/operator.mofed.wait",
                "x.k8s.io/y")) {
            assertDenied(admit(policy, AdmissionRequests.nodeUpdate("n1", null, AGENT), node(label(key, "x")
                    .andThen(managed(OWNED + "," + key))), node(n -> { })), "not: " + key);
        }
        assertAllowed(admit(policy, AdmissionRequests.nodeUpdate("n1", null, AGENT), node(label("example.io/x", "1")
                .andThen(managed(OWNED + ",example.io/x"))), node(n -> { })));
        String tracking = "team-a.node-labeller.io/managed-labels";
        assertDenied(admit(policy, AdmissionRequests.nodeUpdate("n1", null, AGENT), node(annotation(tracking, "example.io/x")
                .andThen(annotation(NodePatch.MANAGED_ANNOTATIONS, tracking))), node(n -> { })), "not: " + tracking);
        assertStopped("not: node.kubernetes.io/unschedulable", policy, node(n -> { }), Step.node(annotation(NodePatch.MANAGED_TAINTS,
                "node.kubernetes.io/unschedulable:NoSchedule").andThen(n -> map(n, "spec").put("taints", List.of(
                Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"),
                Map.of("key", "node.kubernetes.io/unschedulable", "effect", "NoSchedule"))))));
        Installed features = NODE_FEATURE.withScope(parents);
        assertDenied(admit(features, AdmissionRequests.nodeFeature("CREATE", "n1", "node-labeller", AGENT),
                nodeFeature("n1", "n1", Map.of("node-role.kubernetes.io/gpu", "")), null), "not: node-role.kubernetes.io/gpu");
        assertAllowed(admit(features, AdmissionRequests.nodeFeature("CREATE", "n1", "node-labeller", AGENT),
                nodeFeature("n1", "n1", Map.of("example.io/x", "1")), null));
    }

    @Test
    void labelsOutsideTheAllowedDomainsAreDenied() {
        for (var change : List.of(label("node-role.kubernetes.io/gpu", ""), label("kubernetes.io/hostname", "evil"),
                label("kubernetes.io/hostname", null), label("evilnvidia.com/x", "1"), label("nvidia.com.evil.io/x", "1"),
                label("unprefixed", "1"), label("feature.node.kubernetes.io.evil/x", "1"))) {
            Decision d = agentUpdates(change);
            assertFalse(d.allowed(), d.toString());
            assertEquals(List.of(), d.errors());
        }
        assertDenied(agentUpdates(label("example.com/rack", "r1").andThen(managed(OWNED + ",example.com/rack"))),
                "may write or list only labels in its write scope (feature.node.kubernetes.io, profile.node.kubernetes.io, its GPU"
                        + " labels and node-labeller.io/nvidia-keys under nvidia.com; ClusterRoleBinding node-labeller), not: example.com/rack");
    }

    // ---- attacks: taints and extended resources the same way ----

    @Test
    @SuppressWarnings("unchecked")
    void anAdminsTaintCannotBeClaimedThenRemoved() {
        String list = NodePatch.MANAGED_TAINTS;
        assertStopped("not: nvidia.com/gpu", WITH_TAINTS_AND_RESOURCES, node(n -> { }),
                Step.node(annotation(list, "nvidia.com/gpu:NoSchedule")), Step.node(n -> map(n, "spec").remove("taints")));
        // in an allowed domain, set by an admin: existing and not nfd-master's
        Map<String, Object> admins = node(n -> map(n, "spec").put("taints", List.of(
                Map.of("key", "feature.node.kubernetes.io/maintenance", "effect", "NoSchedule"))));
        assertStopped("or one nfd-master lists as its own (nfd.node.kubernetes.io/taints), and never one another install lists, not: feature.node.kubernetes.io/maintenance:NoSchedule",
                WITH_TAINTS_AND_RESOURCES, admins, Step.node(annotation(list, "feature.node.kubernetes.io/maintenance:NoSchedule")),
                Step.node(n -> map(n, "spec").remove("taints")));
        // its own, created in the patch that lists it: allowed, then changed and removed
        assertNull(attack(WITH_TAINTS_AND_RESOURCES, AGENT, node(n -> { }),
                Step.node(annotation(list, "feature.node.kubernetes.io/dedicated:NoSchedule").andThen(n -> map(n, "spec").put("taints",
                        List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"),
                                Map.of("key", "feature.node.kubernetes.io/dedicated", "value", "gpu", "effect", "NoSchedule"))))),
                Step.node(n -> map(n, "spec").put("taints", List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"),
                        Map.of("key", "feature.node.kubernetes.io/dedicated", "value", "cpu", "effect", "NoSchedule")))),
                Step.node(annotation(list, null).andThen(n -> map(n, "spec").put("taints",
                        List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule")))))));
        // switched off (the base policy): no taint change at all
        assertDenied(agentUpdates(n -> map(n, "spec").remove("taints")), "may not change taints here");
    }

    @Test
    void aDevicePluginsResourceCannotBeClaimedThenZeroed() {
        String list = NodePatch.MANAGED_EXTENDED_RESOURCES;
        Consumer<Map<String, Object>> zero = n -> {
            map(map(n, "status"), "capacity").put("nvidia.com/gpu", "0");
            map(map(n, "status"), "allocatable").put("nvidia.com/gpu", "0");
        };
        assertStopped("not: nvidia.com/gpu", WITH_TAINTS_AND_RESOURCES, node(n -> { }),
                Step.node(annotation(list, "nvidia.com/gpu")), Step.status(zero));
        assertStopped("not: nvidia.com/gpu", WITH_TAINTS_AND_RESOURCES, node(n -> { }),
                Step.status(annotation(list, "nvidia.com/gpu").andThen(zero)));
        // a device plugin's resource in an allowed domain: existing, not nfd-master's
        Map<String, Object> plugin = node(n -> {
            map(map(n, "status"), "capacity").put("feature.node.kubernetes.io/fpga", "2");
            map(map(n, "status"), "allocatable").put("feature.node.kubernetes.io/fpga", "2");
        });
        assertStopped("(nfd.node.kubernetes.io/extended-resources), and never one another install lists, not: feature.node.kubernetes.io/fpga", WITH_TAINTS_AND_RESOURCES, plugin,
                Step.status(annotation(list, "feature.node.kubernetes.io/fpga")));
        // claiming one before it exists: listed only in the patch that creates it
        assertStopped("only in the patch that creates it", WITH_TAINTS_AND_RESOURCES, node(n -> { }),
                Step.node(annotation(list, "feature.node.kubernetes.io/widgets")));
        // the kubelet's own resources
        assertStopped("not: cpu", WITH_TAINTS_AND_RESOURCES, node(n -> { }),
                Step.status(n -> map(map(n, "status"), "capacity").put("cpu", "64")));
        // switched off: no status write at all
        assertDenied(admit(AdmissionRequests.nodeUpdate("n1", "status", AGENT), node(n -> { }), node(n -> { })),
                "may not write node status");
    }

    /** On nodes/status, everything but the capacity and allocatable of its own resources stays as it is. */
    @Test
    void theRestOfStatusIsUntouchable() {
        String msg = "may change no node status but the capacity and allocatable of its extended resources";
        for (Consumer<Map<String, Object>> change : List.<Consumer<Map<String, Object>>>of(
                n -> map(map(n, "status"), "daemonEndpoints").put("kubeletEndpoint", Map.of("Port", 22)),
                n -> map(n, "status").remove("volumesInUse"),
                n -> map(n, "status").remove("volumesAttached"),
                n -> map(n, "status").put("runtimeHandlers", List.of(Map.of("name", "evil", "features", Map.of()))),
                n -> map(n, "status").put("images", List.of(Map.of("names", List.of("registry.example.com/evil:1"), "sizeBytes", 1))),
                n -> map(n, "status").put("conditions", List.of(Map.of("type", "Ready", "status", "False"))),
                n -> map(n, "status").remove("nodeInfo"))) {
            assertStopped(msg, WITH_TAINTS_AND_RESOURCES, node(n -> { }), Step.status(change));
        }
    }

    @Test
    void theRestOfSpecMetadataAndForeignAnnotationsAreUntouchable() {
        assertDenied(agentUpdates(n -> map(n, "spec").put("unschedulable", true)), "may not change a node's spec");
        assertDenied(agentUpdates(n -> map(n, "spec").put("podCIDR", "10.0.0.0/24")), "may not change a node's spec");
        assertDenied(agentUpdates(n -> map(n, "spec").put("providerID", "aws:///x")), "may not change a node's spec");
        assertDenied(agentUpdates(n -> map(n, "metadata").put("finalizers", List.of("example.com/x"))), "finalizers or owner references");
        assertDenied(agentUpdates(annotation("other.io/x", "y")), "not: other.io/x");
        assertDenied(agentUpdates(annotation("volumes.kubernetes.io/controller-managed-attach-detach", null)),
                "change or remove only its tracking annotations and the annotations listed in node-labeller.io/managed-annotations"
                        + " before the change, not: volumes.kubernetes.io/controller-managed-attach-detach");
        // nfd-master's own lists are another writer's: never changed, never claimed
        Map<String, Object> nfd = node(annotation(NodePatch.NFD_LABELS, "cpu-model.vendor_id"));
        assertStopped("not: nfd.node.kubernetes.io/feature-labels", BASE, nfd,
                Step.node(annotation(NodePatch.NFD_LABELS, "cpu-model.vendor_id,kubernetes.io/hostname")));
        assertStopped("not: nfd.node.kubernetes.io/feature-labels", BASE, nfd,
                Step.node(annotation(NodePatch.MANAGED_ANNOTATIONS, NodePatch.NFD_LABELS)));
    }

    @Test
    void ruleAnnotationsFollowTheirOwnList() {
        String list = NodePatch.MANAGED_ANNOTATIONS;
        assertNull(attack(BASE, AGENT, node(n -> { }),
                Step.node(annotation("feature.node.kubernetes.io/note", "hello").andThen(annotation(list, "feature.node.kubernetes.io/note"))),
                Step.node(annotation("feature.node.kubernetes.io/note", "bye")),
                Step.node(annotation("feature.node.kubernetes.io/note", null).andThen(annotation(list, null)))));
        assertDenied(agentUpdates(annotation("feature.node.kubernetes.io/note", "hello")),
                "may add only annotations it lists in node-labeller.io/managed-annotations, not: feature.node.kubernetes.io/note");
        assertStopped("not: feature.node.kubernetes.io/note", BASE, node(annotation("feature.node.kubernetes.io/note", "theirs")),
                Step.node(annotation(list, "feature.node.kubernetes.io/note")), Step.node(annotation("feature.node.kubernetes.io/note", "mine")));
        assertStopped("not: nvidia.com/gpu.note", BASE, node(n -> { }),
                Step.node(annotation("nvidia.com/gpu.note", "1").andThen(annotation(list, "nvidia.com/gpu.note"))));
    }

    /** A tracking list naming a key twice would let counts lie: such a write is an error, so it is denied. */
    @Test
    void aListNamingAKeyTwiceIsRefused() {
        Decision d = agentUpdates(managed(OWNED + ",feature.node.kubernetes.io/kernel-version.major"));
        assertFalse(d.allowed());
        assertFalse(d.errors().isEmpty(), "denied by the set's duplicate key");
    }

    // ---- cost: the server's limits hold for a node with thousands of keys ----

    /**
     * kube-apiserver refuses a request when one expression exceeds its per-call cost limit, or the policy its per-request
     * budget. On a node with 3,000 owned labels (and 4,500) the agent's first labelling, a change in the steady state and
     * the removal of them all are each admitted, and so is the take-over of 3,000 of nfd-master's labels. (A check like
     * {@code x in list} inside a filter over a list would cost the square of the keys and be refused here.) The node's
     * annotations (262,144 bytes in all) bound the keys: at 4,500 keys of 49 characters the tracking list is 225,000
     * bytes, and nfd-master's list of as many keys beside it would not fit.
     */
    @Test
    void writesOnANodeWithThousandsOfKeysStayWithinTheServersCostLimits() {
        for (int n : List.of(3000, 4500)) {
            SortedMap<String, String> labels = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                labels.put(String.format("feature.node.kubernetes.io/pci-%04d_10de.present", i), "true");
            }
            Map<String, Object> bare = node(x -> {
                map(x, "metadata").remove("labels");
                map(x, "metadata").remove("annotations");
            });
            Map<String, Object> labelled = agentWrites(BASE, bare, NodePatch.Desired.labels(labels));
            SortedMap<String, String> oneChanged = new TreeMap<>(labels);
            oneChanged.put(labels.firstKey(), "false");
            agentWrites(BASE, labelled, NodePatch.Desired.labels(oneChanged));
            agentWrites(BASE, labelled, NodePatch.Desired.labels(new TreeMap<>()));
            if (n > 3000) {
                continue;
            }
            Map<String, Object> nfdOwned = copy(labelled);
            @SuppressWarnings("unchecked")
            Map<String, Object> annotations = (Map<String, Object>) ((Map<String, Object>) nfdOwned.get("metadata")).get("annotations");
            annotations.remove(NodePatch.MANAGED_ANNOTATION);
            annotations.put(NodePatch.NFD_LABELS, String.join(",", labels.keySet().stream()
                    .map(k -> k.substring("feature.node.kubernetes.io/".length())).toList()));
            Map<String, Object> taken = agentWrites(BASE, nfdOwned, NodePatch.Desired.labels(labels));
            assertEquals(n, ((String) ((Map<?, ?>) ((Map<?, ?>) taken.get("metadata")).get("annotations"))
                    .get(NodePatch.MANAGED_ANNOTATION)).split(",").length, "taken over");
        }
    }

    // ---- nfd-compat: NodeFeature objects name the node nfd-master labels ----

    /** A NodeFeature as NodeFeaturePublisher writes it: named after the node, labelled with the node's name. */
    static Map<String, Object> nodeFeature(String name, String forNode, Map<String, String> labels) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        meta.put("namespace", "node-labeller");
        if (forNode != null) {
            meta.put("labels", Map.of("nfd.node.kubernetes.io/node-name", forNode));
        }
        return Map.of("apiVersion", "nfd.k8s-sigs.io/v1alpha1", "kind", "NodeFeature", "metadata", meta,
                "spec", Map.of("labels", labels));
    }

    static Map<String, Object> nodeFeature(String name, String forNode) {
        return nodeFeature(name, forNode, Map.of("feature.node.kubernetes.io/kernel-version.major", "6", "nvidia.com/gpu.present", "true"));
    }

    static Decision writeNodeFeature(String operation, User user, Map<String, Object> object, Map<String, Object> oldObject) {
        String name = (String) ((Map<?, ?>) (object != null ? object : oldObject).get("metadata")).get("name");
        return admit(NODE_FEATURE, AdmissionRequests.nodeFeature(operation, name, "node-labeller", user), object, oldObject);
    }

    @Test
    void theAgentCreatesAndUpdatesOnlyItsOwnNodesNodeFeature() {
        assertAllowed(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", "n1"), null));
        assertAllowed(writeNodeFeature("UPDATE", AGENT, nodeFeature("n1", "n1"), nodeFeature("n1", "n1")));
        assertAllowed(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", "n1", Map.of("kernel-version.major", "6")), null));
    }

    @Test
    void aNodeFeatureForAnotherNodeIsDenied() {
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n2", "n2"), null), "bound to (n1), not n2 for 'n2'");
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", null), null), "for ''");
        // squatting: another node's name, labelled with its own node; n2 could never publish
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n2", "n1"), null), "not n2 for 'n1'");
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("custom-name", "n1"), null), "not custom-name");
        // the GPU agent's object, named as GPU Feature Discovery names its own: for the bound node only
        assertAllowed(writeNodeFeature("CREATE", GPU_AGENT, gpuNodeFeature("node-labeller-gpu-n1", "n1"), null));
        assertAllowed(writeNodeFeature("UPDATE", GPU_AGENT, gpuNodeFeature("node-labeller-gpu-n1", "n1"),
                gpuNodeFeature("node-labeller-gpu-n1", "n1")));
        assertDenied(writeNodeFeature("CREATE", GPU_AGENT, gpuNodeFeature("node-labeller-gpu-n2", "n1"), null),
                "not node-labeller-gpu-n2");
        assertDenied(writeNodeFeature("CREATE", GPU_AGENT, gpuNodeFeature("node-labeller-gpu-n2", "n2"), null), "for 'n2'");
        assertDenied(writeNodeFeature("UPDATE", GPU_AGENT, gpuNodeFeature("node-labeller-gpu-n1", "n1"),
                gpuNodeFeature("node-labeller-gpu-n1", "n2")), "of another node");
        // re-pointing another node's object at itself, or changing it
        // (the server reports the first validation that fails: the new object's name)
        assertDenied(writeNodeFeature("UPDATE", AGENT, nodeFeature("n2", "n1"), nodeFeature("n2", "n2")), "not n2 for 'n1'");
        assertDenied(writeNodeFeature("DELETE", AGENT, null, nodeFeature("n2", "n2")), "of another node (n2");
        assertDenied(writeNodeFeature("CREATE", AGENT_UNBOUND, nodeFeature("n1", "n1"), null), "not a pod-bound token");
        assertTrue(writeNodeFeature("CREATE", User.serviceAccount("nfd", "nfd-worker", "n2"), nodeFeature("n2", "n2"), null).allowed());
    }

    /** A NodeFeature of the GPU agent: GPU Feature Discovery's labels. */
    static Map<String, Object> gpuNodeFeature(String name, String forNode) {
        return nodeFeature(name, forNode, Map.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count", "8"));
    }

    /** The labels of a NodeFeature pass the node policy's allowlist: nfd-master would apply them. */
    @Test
    void aNodeFeatureCarriesOnlyLabelsTheAgentProduces() {
        for (String key : List.of("nvidia.com/gpu.deploy.driver", "nvidia.com/mig.config", "nvidia.com/cc.mode",
                "kubernetes.io/hostname", "example.com/x")) {
            assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", "n1", Map.of(key, "x")), null), "not: " + key);
        }
    }
}
