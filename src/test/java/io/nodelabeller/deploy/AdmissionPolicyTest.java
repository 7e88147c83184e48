package io.nodelabeller.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.nodelabeller.deploy.AdmissionRequests.User;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Evaluates the shipped ValidatingAdmissionPolicy with a CEL interpreter (cel-java, with the strings extension the
 * API server also enables) the way the API server does: match conditions, then variables in order, then every
 * validation. The {@code request} variable is built as the API server builds it ({@link AdmissionRequests}: empty
 * omitempty fields absent), and objects as it converts them (empty label and annotation maps absent).
 * <p>
 * With {@code failurePolicy: Fail} an evaluation error also rejects the request, but for the wrong reason and with
 * the wrong message; {@link Decision} keeps errors apart from denials, and every assertion here says which one it
 * expects, so no case passes only because an expression failed.
 * Not covered: the API server's own type checking against the Node schema and its cost limits.
 */
class AdmissionPolicyTest {

    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setStandardMacros(dev.cel.parser.CelStandardMacro.STANDARD_MACROS) // has, all, exists, filter
            .addVar("request", SimpleType.DYN).addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN).addVar("variables", SimpleType.DYN)
            .addCompilerLibraries(CelExtensions.strings()).addRuntimeLibraries(CelExtensions.strings())
            .build();

    private static final ValidatingAdmissionPolicy POLICY = Manifests.ofKind(Manifests.render("base"),
            ValidatingAdmissionPolicy.class).get(0);
    private static final User AGENT = User.serviceAccount("node-labeller", "node-labeller", "n1");
    private static final User AGENT_UNBOUND = User.serviceAccount("node-labeller", "node-labeller", null);

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
              podCIDR: 10.244.1.0/24
              taints:
                - {key: nvidia.com/gpu, effect: NoSchedule}
            status:
              capacity: {cpu: "8"}
            """;

    /**
     * What the API server would decide: {@code applies} false when a match condition excludes the request;
     * otherwise the messages of the validations that evaluated to false, and the evaluation errors (each of which
     * also rejects the request under failurePolicy Fail).
     */
    record Decision(boolean applies, List<String> denials, List<String> errors) {
        boolean allowed() {
            return !applies || (denials.isEmpty() && errors.isEmpty());
        }
    }

    static Decision admit(Map<String, Object> request, Map<String, Object> object, Map<String, Object> oldObject) {
        return admit(POLICY, request, object, oldObject);
    }

    /** {@code object} is null for a DELETE, {@code oldObject} for a CREATE, as the API server passes them. */
    static Decision admit(ValidatingAdmissionPolicy policy, Map<String, Object> request, Map<String, Object> object,
                          Map<String, Object> oldObject) {
        Map<String, Object> ctx = new HashMap<>();
        ctx.put("request", request);
        ctx.put("object", omitEmptyMeta(object));
        ctx.put("oldObject", omitEmptyMeta(oldObject));
        List<String> errors = new ArrayList<>();
        for (var condition : policy.getSpec().getMatchConditions()) {
            Object matched = eval(condition.getExpression(), ctx, errors);
            if (Boolean.FALSE.equals(matched)) {
                return new Decision(false, List.of(), List.of());
            }
        }
        Map<String, Object> variables = new LinkedHashMap<>();
        for (Variable v : policy.getSpec().getVariables()) {
            ctx.put("variables", Map.copyOf(variables));
            Object value = eval(v.getExpression(), ctx, errors);
            if (value != null) {
                variables.put(v.getName(), value);
            }
        }
        ctx.put("variables", Map.copyOf(variables));
        List<String> denials = new ArrayList<>();
        for (Validation v : policy.getSpec().getValidations()) {
            if (Boolean.FALSE.equals(eval(v.getExpression(), ctx, errors))) {
                denials.add(v.getMessageExpression() != null ? (String) eval(v.getMessageExpression(), ctx, errors) : v.getMessage());
            }
        }
        return new Decision(true, denials, errors);
    }

    /** The value, or null with the error added to {@code errors}. A compile error fails the test at once. */
    static Object eval(String expression, Map<String, Object> ctx, List<String> errors) {
        CelValidationResult compiled = CEL.compile(expression);
        if (compiled.hasError()) {
            throw new AssertionError("does not compile: " + expression + "\n" + compiled.getErrorString());
        }
        try {
            return CEL.createProgram(compiled.getAst()).eval(ctx);
        } catch (Exception e) {
            errors.add(expression + ": " + e.getMessage());
            return null;
        }
    }

    /** ObjectMeta's labels, annotations, finalizers and ownerReferences are omitempty: an empty one is absent. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> omitEmptyMeta(Map<String, Object> object) {
        if (object == null) {
            return null;
        }
        Map<String, Object> copy = new LinkedHashMap<>(object);
        Map<String, Object> meta = new LinkedHashMap<>((Map<String, Object>) copy.get("metadata"));
        for (String key : List.of("labels", "annotations", "finalizers", "ownerReferences")) {
            Object value = meta.remove(key);
            AdmissionRequests.putOmitEmpty(meta, key, value);
        }
        copy.put("metadata", meta);
        return copy;
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

    static Decision agentUpdates(Consumer<Map<String, Object>> change) {
        return admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), node(change), node(n -> { }));
    }

    static Consumer<Map<String, Object>> label(String key, String value) {
        return n -> {
            Map<String, Object> labels = map(map(n, "metadata"), "labels");
            if (value == null) {
                labels.remove(key);
            } else {
                labels.put(key, value);
            }
        };
    }

    static Consumer<Map<String, Object>> managed(String keys) {
        return n -> map(map(n, "metadata"), "annotations").put("node-labeller.io/managed-labels", keys);
    }

    static void assertAllowed(Decision d) {
        assertTrue(d.applies(), "the policy must apply to the agent");
        assertEquals(List.of(), d.errors(), "evaluation errors (an error denies under failurePolicy Fail)");
        assertEquals(List.of(), d.denials());
    }

    /** Denied by a validation evaluating to false (not by an error), with a message containing {@code text}. */
    static void assertDenied(Decision d, String text) {
        assertTrue(d.applies(), "the policy must apply to the agent");
        assertEquals(List.of(), d.errors(), "denied by an evaluation error instead of a validation");
        assertTrue(d.denials().stream().anyMatch(m -> m.contains(text)), "no denial says '" + text + "': " + d.denials());
    }

    @Test
    void theHarnessTellsAnEvaluationErrorFromADenial() {
        // The request shape matters: the API server leaves subResource out for the node itself, so an expression
        // that reads it without has() fails to evaluate. A harness that sent subResource: "" could not see this.
        Map<String, Object> request = AdmissionRequests.nodeUpdate("n1", null, AGENT);
        assertFalse(request.containsKey("subResource"));
        assertFalse(request.containsKey("namespace"));
        assertFalse(((Map<?, ?>) AdmissionRequests.nodeUpdate("n1", null, AGENT_UNBOUND).get("userInfo")).containsKey("extra"));
        List<String> errors = new ArrayList<>();
        assertNull(eval("request.subResource == ''", Map.of("request", request), errors));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("subResource"), errors.get(0));
        assertEquals(true, eval("!has(request.subResource) || request.subResource == ''", Map.of("request", request), errors));
        assertEquals(1, errors.size());
    }

    @Test
    void addingAnOwnedLabelIsAllowed() {
        assertAllowed(agentUpdates(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB").andThen(managed(
                "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present,nvidia.com/gpu.product"))));
    }

    @Test
    void changingAnOwnedLabelIsAllowed() {
        assertAllowed(agentUpdates(label("feature.node.kubernetes.io/kernel-version.major", "7")));
    }

    @Test
    void removingAnOwnedLabelAndUnlistingItIsAllowed() {
        assertAllowed(agentUpdates(label("feature.node.kubernetes.io/pci-0300_1af4.present", null)
                .andThen(managed("feature.node.kubernetes.io/kernel-version.major"))));
    }

    @Test
    void theFirstLabellingOfABareNodeIsAllowed() {
        Map<String, Object> bare = node(n -> {
            map(n, "metadata").remove("labels");
            map(n, "metadata").remove("annotations");
        });
        Map<String, Object> labelled = node(n -> {
            map(n, "metadata").put("labels", new LinkedHashMap<>(Map.of("nvidia.com/gpu.present", "true")));
            map(n, "metadata").put("annotations", new LinkedHashMap<>(Map.of("node-labeller.io/managed-labels", "nvidia.com/gpu.present")));
        });
        assertAllowed(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), labelled, bare));
    }

    @Test
    void severalChangesInOnePatchAndANoOpAreAllowed() {
        assertAllowed(agentUpdates(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB")
                .andThen(label("feature.node.kubernetes.io/kernel-version.major", "7"))
                .andThen(label("feature.node.kubernetes.io/pci-0300_1af4.present", null))
                .andThen(label("sub.feature.node.kubernetes.io/x", "y"))
                .andThen(managed("feature.node.kubernetes.io/kernel-version.major,nvidia.com/gpu.product,sub.feature.node.kubernetes.io/x"))));
        assertAllowed(agentUpdates(n -> { }));
    }

    @Test
    void anotherNodeIsDenied() {
        assertDenied(agentUpdates(n -> map(n, "metadata").put("name", "n2")), "token is bound to (n1), not n2");
        assertEquals(1, agentUpdates(n -> map(n, "metadata").put("name", "n2")).denials().size());
    }

    @Test
    void aTokenNotBoundToANodeIsDeniedWithItsOwnMessage() {
        assertDenied(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT_UNBOUND), node(label("nvidia.com/x", "y")), node(n -> { })),
                "none: not a pod-bound token");
    }

    @Test
    void labelsOutsideItsDomainsAreDenied() {
        for (var change : List.of(label("node-role.kubernetes.io/gpu", ""), label("kubernetes.io/hostname", "evil"),
                label("kubernetes.io/hostname", null), label("evilnvidia.com/x", "1"), label("nvidia.com.evil.io/x", "1"),
                label("unprefixed", "1"), label("feature.node.kubernetes.io.evil/x", "1"))) {
            assertDenied(agentUpdates(change), "node-labeller may change or own only keys under feature.node.kubernetes.io/, nvidia.com/");
        }
    }

    @Test
    void aTaintOrAnotherSpecChangeIsDenied() {
        assertDenied(agentUpdates(n -> map(n, "spec").put("taints", List.of())), "may not change taints here");
        assertDenied(agentUpdates(n -> map(n, "spec").put("taints",
                List.of(Map.of("key", "nvidia.com/gpu", "effect", "NoSchedule"), Map.of("key", "x", "effect", "NoExecute")))),
                "may not change taints here");
        assertDenied(agentUpdates(n -> map(n, "spec").put("unschedulable", true)), "may not change a node's spec");
        assertDenied(agentUpdates(n -> map(n, "spec").put("podCIDR", "10.0.0.0/24")), "may not change a node's spec");
    }

    @Test
    void statusIsDenied() {
        assertDenied(admit(AdmissionRequests.nodeUpdate("n1", "status", AGENT), node(n -> { }), node(n -> { })),
                "node-labeller may not write node status");
    }

    @Test
    void foreignAnnotationsAndFinalizersAreDenied() {
        assertDenied(agentUpdates(n -> map(map(n, "metadata"), "annotations").put("other.io/x", "y")),
                "may add only annotations it lists in node-labeller.io/managed-annotations, not: other.io/x");
        assertDenied(agentUpdates(n -> map(map(n, "metadata"), "annotations").remove("volumes.kubernetes.io/controller-managed-attach-detach")),
                "change or remove only its tracking annotations and the annotations listed in node-labeller.io/managed-annotations"
                        + " before the change, not: volumes.kubernetes.io/controller-managed-attach-detach");
        assertDenied(agentUpdates(n -> map(n, "metadata").put("finalizers", List.of("x"))), "finalizers or owner references");
    }

    @Test
    void otherUsersAreNotConcerned() {
        assertFalse(admit(AdmissionRequests.nodeUpdate("n1", null, User.kubelet("n1")), node(label("kubernetes.io/hostname", "x")),
                node(n -> { })).applies());
        assertFalse(admit(AdmissionRequests.nodeUpdate("n1", null, User.serviceAccount("kube-system", "default", "n1")),
                node(label("x", "y")), node(n -> { })).applies());
        assertFalse(admit(AdmissionRequests.nodeUpdate("n1", null, User.serviceAccount("gpu-operator", "nvidia-gpu-feature-discovery", "n1")),
                node(label("x", "y")), node(n -> { })).applies());
        assertFalse(POLICY.getSpec().getMatchConditions().isEmpty());
    }

    // ---- ownership: only what the managed-labels annotation listed before the change ----

    /** The node as GFD/NFD and the GPU Operator leave it, with one label of ours. */
    static Map<String, Object> gpuNode(Consumer<Map<String, Object>> change) {
        return node(label("nvidia.com/gpu.deploy.driver", "true").andThen(label("nvidia.com/gpu.deploy.operands", "true"))
                .andThen(label("nvidia.com/mig.config", "all-disabled"))
                .andThen(label("feature.node.kubernetes.io/team.example.com-rack", "r12"))
                .andThen(change));
    }

    static Decision agentUpdatesGpuNode(Consumer<Map<String, Object>> change) {
        return admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), gpuNode(change), gpuNode(n -> { }));
    }

    @Test
    void aForeignLabelInItsOwnDomainCannotBeRemovedOrChanged() {
        assertDenied(agentUpdatesGpuNode(label("feature.node.kubernetes.io/team.example.com-rack", null)),
                "change or remove only labels listed in node-labeller.io/managed-labels before the change, not: "
                        + "feature.node.kubernetes.io/team.example.com-rack");
        // listing it in the same patch does not help: ownership is judged on the annotation before the change
        assertDenied(agentUpdatesGpuNode(label("feature.node.kubernetes.io/team.example.com-rack", "r13").andThen(managed(
                        "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present,"
                                + "feature.node.kubernetes.io/team.example.com-rack"))),
                "before the change, not: feature.node.kubernetes.io/team.example.com-rack");
    }

    @Test
    void aNewLabelMustBeListedInTheNewAnnotation() {
        assertDenied(agentUpdates(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB")),
                "may add only labels it lists in node-labeller.io/managed-labels, not: nvidia.com/gpu.product");
    }

    @Test
    void takingOverAForeignValueTakesAClaimFirstThenTheChange() {
        // what NodePatch sends: first the key is listed (its value untouched), then the value is set
        String owned = "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present";
        Map<String, Object> before = node(label("nvidia.com/gpu.count", "4"));
        Map<String, Object> claimed = node(label("nvidia.com/gpu.count", "4").andThen(managed(owned + ",nvidia.com/gpu.count")));
        Map<String, Object> changed = node(label("nvidia.com/gpu.count", "8").andThen(managed(owned + ",nvidia.com/gpu.count")));
        assertAllowed(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), claimed, before));
        assertAllowed(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), changed, claimed));
        assertDenied(admit(AdmissionRequests.nodeUpdate("n1", null, AGENT), changed, before), "before the change, not: nvidia.com/gpu.count");
    }

    @Test
    void controlKeysOfOtherComponentsAreNeverWrittenOrOwned() {
        String owned = "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present";
        // removing the GPU Operator's driver switch, even "owned"
        assertDenied(agentUpdatesGpuNode(label("nvidia.com/gpu.deploy.driver", null)), "control keys of other components: nvidia.com/gpu.deploy.driver");
        // tearing the operands down
        assertDenied(agentUpdatesGpuNode(label("nvidia.com/gpu.deploy.operands", "false")), "control keys of other components: nvidia.com/gpu.deploy.operands");
        // repartitioning the GPUs
        assertDenied(agentUpdatesGpuNode(label("nvidia.com/mig.config", "all-1g.10gb")), "control keys of other components: nvidia.com/mig.config");
        // another sharing config for the device plugin, an upgrade trigger, even listed as owned
        for (String key : List.of("nvidia.com/device-plugin.config", "nvidia.com/gpu.workload.config",
                "nvidia.com/gpu-driver-upgrade-state", "feature.node.kubernetes.io/Upgrade-now")) {
            assertDenied(agentUpdatesGpuNode(label(key, "x").andThen(managed(owned + "," + key))), "control keys of other components: " + key);
        }
        // claiming one in the annotation, without touching the label (the first step of a take-over)
        assertDenied(agentUpdatesGpuNode(managed(owned + ",nvidia.com/gpu.deploy.driver")), "control keys of other components: nvidia.com/gpu.deploy.driver");
        // the agent's label validity refuses the same keys, so it never sends a patch the policy denies for this
        for (String key : List.of("nvidia.com/gpu.deploy.driver", "nvidia.com/mig.config.state", "nvidia.com/device-plugin.config",
                "nvidia.com/gpu.workload.config", "nvidia.com/gpu-driver-upgrade-state", "nvidia.com/gpu.product", "nvidia.com/mig.capable")) {
            boolean deniedByPolicy = !agentUpdatesGpuNode(label(key, "x").andThen(managed(owned + "," + key))).denials().isEmpty();
            assertEquals(deniedByPolicy, io.nodelabeller.label.LabelValidity.isControlKey(key), key);
        }
    }

    @Test
    void theAnnotationListsOnlyKeysInItsDomains() {
        String owned = "feature.node.kubernetes.io/kernel-version.major,feature.node.kubernetes.io/pci-0300_1af4.present";
        // claiming kubernetes.io/hostname would let a later patch remove it
        assertDenied(agentUpdates(managed(owned + ",kubernetes.io/hostname")), "not: kubernetes.io/hostname");
        assertDenied(agentUpdates(managed(owned + ",team.example.com/owner")), "not: team.example.com/owner");
        assertAllowed(agentUpdates(managed(owned + ",nvidia.com/gpu.count")));
    }

    @Test
    void theServiceAccountIsMatchedInWhateverNamespaceAndUnderWhateverPrefixOrSuffix() {
        for (User agent : List.of(User.serviceAccount("node-labeller", "node-labeller", "n1"),
                User.serviceAccount("kube-system", "node-labeller", "n1"), User.serviceAccount("gpu-operator", "gpu-node-labeller", "n1"),
                User.serviceAccount("node-labeller", "node-labeller-prod", "n1"))) {
            assertAllowed(admit(AdmissionRequests.nodeUpdate("n1", null, agent), node(label("feature.node.kubernetes.io/kernel-version.major", "7")),
                    node(n -> { })));
            assertDenied(admit(AdmissionRequests.nodeUpdate("n2", null, agent), node(n -> map(n, "metadata").put("name", "n2")),
                    node(n -> map(n, "metadata").put("name", "n2"))), "(n1), not n2");
        }
    }

    // ---- nfd-compat: NodeFeature objects name the node nfd-master labels ----

    private static final ValidatingAdmissionPolicy NODE_FEATURE_POLICY = Manifests.ofKind(Manifests.render("overlays/nfd-compat"),
            ValidatingAdmissionPolicy.class).get(0);

    /** A NodeFeature as NodeFeaturePublisher writes it: named after the node, labelled with the node's name. */
    static Map<String, Object> nodeFeature(String name, String forNode) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        meta.put("namespace", "node-labeller");
        if (forNode != null) {
            meta.put("labels", Map.of("nfd.node.kubernetes.io/node-name", forNode));
        }
        return Map.of("apiVersion", "nfd.k8s-sigs.io/v1alpha1", "kind", "NodeFeature", "metadata", meta,
                "spec", Map.of("labels", Map.of("feature.node.kubernetes.io/kernel-version.major", "6")));
    }

    static Decision writeNodeFeature(String operation, User user, Map<String, Object> object, Map<String, Object> oldObject) {
        String name = (String) ((Map<?, ?>) (object != null ? object : oldObject).get("metadata")).get("name");
        return admit(NODE_FEATURE_POLICY, AdmissionRequests.nodeFeature(operation, name, "node-labeller", user), object, oldObject);
    }

    @Test
    void theAgentCreatesAndUpdatesOnlyItsOwnNodesNodeFeature() {
        assertAllowed(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", "n1"), null));
        assertAllowed(writeNodeFeature("UPDATE", AGENT, nodeFeature("n1", "n1"), nodeFeature("n1", "n1")));
        assertAllowed(writeNodeFeature("CREATE", AGENT, nodeFeature("custom-name", "n1"), null));
    }

    @Test
    void aNodeFeatureForAnotherNodeIsDenied() {
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n2", "n2"), null), "bound to (n1), not one for 'n2'");
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", null), null), "not one for ''");
        // re-pointing another node's object at itself, or changing it
        assertDenied(writeNodeFeature("UPDATE", AGENT, nodeFeature("n2", "n1"), nodeFeature("n2", "n2")), "of another node ('n2')");
        assertDenied(writeNodeFeature("UPDATE", AGENT, nodeFeature("n2", "n2"), nodeFeature("n2", "n2")), "of another node ('n2')");
        assertDenied(writeNodeFeature("DELETE", AGENT, null, nodeFeature("n2", "n2")), "of another node ('n2')");
        assertDenied(writeNodeFeature("CREATE", AGENT_UNBOUND, nodeFeature("n1", "n1"), null), "not a pod-bound token");
        assertFalse(writeNodeFeature("CREATE", User.serviceAccount("nfd", "nfd-worker", "n2"), nodeFeature("n2", "n2"), null).applies());
    }

    // ---- rule outputs: annotations (always), taints and extended resources (only where switched on) ----

    /** The policy of overlays/taints-and-extended-resources: taints and extended resources allowed. */
    private static final ValidatingAdmissionPolicy WITH_TAINTS_AND_RESOURCES = Manifests.ofKind(
            Manifests.render("overlays/taints-and-extended-resources"), ValidatingAdmissionPolicy.class).get(0);

    static Consumer<Map<String, Object>> annotation(String key, String value) {
        return n -> {
            Map<String, Object> a = map(map(n, "metadata"), "annotations");
            if (value == null) {
                a.remove(key);
            } else {
                a.put(key, value);
            }
        };
    }

    @SuppressWarnings("unchecked")
    static Consumer<Map<String, Object>> taints(Map<String, Object>... taints) {
        return n -> map(n, "spec").put("taints", List.of(taints));
    }

    static Map<String, Object> taint(String key, String value, String effect) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("key", key);
        if (value != null) {
            t.put("value", value);
        }
        t.put("effect", effect);
        return t;
    }

    /** The NODE's own taint, which belongs to another component. */
    static final Map<String, Object> GPU_TAINT = taint("nvidia.com/gpu", null, "NoSchedule");
    static final Map<String, Object> SPECIAL = taint("feature.node.kubernetes.io/special-node", "true", "PreferNoSchedule");

    @SafeVarargs
    static Decision agentUpdates(ValidatingAdmissionPolicy policy, String subResource, Consumer<Map<String, Object>> before,
                                 Consumer<Map<String, Object>>... changes) {
        return admit(policy, AdmissionRequests.nodeUpdate("n1", subResource, AGENT), node(n -> {
            before.accept(n);
            for (Consumer<Map<String, Object>> c : changes) {
                c.accept(n);
            }
        }), node(before));
    }

    @Test
    void ruleAnnotationsFollowTheirOwnList() {
        Consumer<Map<String, Object>> none = n -> { };
        String list = "node-labeller.io/managed-annotations";
        // added together with its listing, changed and removed while listed
        assertAllowed(agentUpdates(POLICY, null, none, annotation("nvidia.com/gpu.note", "hello"),
                annotation(list, "nvidia.com/gpu.note")));
        Consumer<Map<String, Object>> owned = annotation("nvidia.com/gpu.note", "hello").andThen(annotation(list, "nvidia.com/gpu.note"));
        assertAllowed(agentUpdates(POLICY, null, owned, annotation("nvidia.com/gpu.note", "bye")));
        assertAllowed(agentUpdates(POLICY, null, owned, annotation("nvidia.com/gpu.note", null), annotation(list, null)));
        // not listed: neither added nor changed
        assertDenied(agentUpdates(POLICY, null, none, annotation("nvidia.com/gpu.note", "hello")),
                "may add only annotations it lists in node-labeller.io/managed-annotations, not: nvidia.com/gpu.note");
        assertDenied(agentUpdates(POLICY, null, annotation("nvidia.com/gpu.note", "theirs"),
                annotation("nvidia.com/gpu.note", "mine"), annotation(list, "nvidia.com/gpu.note")),
                "not: nvidia.com/gpu.note");
        // listing is claiming: outside the domains, or a control key, is denied
        assertDenied(agentUpdates(POLICY, null, none, annotation("example.com/x", "1"), annotation(list, "example.com/x")),
                "may change or own only keys under feature.node.kubernetes.io/, nvidia.com/, not: example.com/x");
        assertDenied(agentUpdates(POLICY, null, none, annotation("nvidia.com/mig.config", "all-1g.10gb"),
                annotation(list, "nvidia.com/mig.config")), "control keys of other components: nvidia.com/mig.config");
    }

    @Test
    @SuppressWarnings("unchecked")
    void taintsOnlyWhereSwitchedOnAndOnlyItsOwn() {
        String list = "node-labeller.io/managed-taints";
        Consumer<Map<String, Object>> none = n -> { };
        Consumer<Map<String, Object>> add = taints(GPU_TAINT, SPECIAL);
        Consumer<Map<String, Object>> listed = annotation(list, "feature.node.kubernetes.io/special-node:PreferNoSchedule");
        assertAllowed(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, none, add, listed));
        // switched off (the base policy): the same patch is denied
        assertDenied(agentUpdates(POLICY, null, none, add, listed), "may not change taints here");
        // not listed, or listed only after a change of value it did not own
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, none, add),
                "may add only taints it lists in node-labeller.io/managed-taints, not: feature.node.kubernetes.io/special-node:PreferNoSchedule");
        // its own taint: value changed and removed while listed
        Consumer<Map<String, Object>> owned = add.andThen(listed);
        assertAllowed(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, owned,
                taints(GPU_TAINT, taint("feature.node.kubernetes.io/special-node", "false", "PreferNoSchedule"))));
        assertAllowed(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, owned, taints(GPU_TAINT), annotation(list, null)));
        // another component's taint: never removed or changed, whatever the list says
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, owned, taints(SPECIAL)),
                "change or remove only taints listed in node-labeller.io/managed-taints before the change, not: nvidia.com/gpu:NoSchedule");
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, owned, taints(taint("nvidia.com/gpu", "x", "NoSchedule"), SPECIAL),
                annotation(list, "feature.node.kubernetes.io/special-node:PreferNoSchedule,nvidia.com/gpu:NoSchedule")),
                "not: nvidia.com/gpu:NoSchedule");
        // a taint outside the domains cannot be claimed
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, none, taints(GPU_TAINT, taint("example.com/t", null, "NoExecute")),
                annotation(list, "example.com/t:NoExecute")), "not: example.com/t");
        // the rest of spec stays closed
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, null, none, n -> map(n, "spec").put("unschedulable", true)),
                "may not change a node's spec");
    }

    static Consumer<Map<String, Object>> capacity(String key, String value) {
        return n -> {
            for (String field : List.of("capacity", "allocatable")) {
                Map<String, Object> m = map(map(n, "status"), field);
                if (value == null) {
                    m.remove(key);
                } else {
                    m.put(key, value);
                }
            }
        };
    }

    @Test
    void extendedResourcesOnlyThroughStatusWhereSwitchedOnAndOnlyItsOwn() {
        String list = "node-labeller.io/managed-extended-resources";
        // the metadata patch listed it first; the status patch then adds capacity and allocatable
        Consumer<Map<String, Object>> listed = annotation(list, "feature.node.kubernetes.io/widgets");
        assertAllowed(agentUpdates(WITH_TAINTS_AND_RESOURCES, "status", listed, capacity("feature.node.kubernetes.io/widgets", "4")));
        assertAllowed(agentUpdates(WITH_TAINTS_AND_RESOURCES, "status", listed.andThen(capacity("feature.node.kubernetes.io/widgets", "4")),
                capacity("feature.node.kubernetes.io/widgets", null)));
        assertDenied(agentUpdates(POLICY, "status", listed, capacity("feature.node.kubernetes.io/widgets", "4")),
                "may not write node status");
        // not listed before the status patch
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, "status", n -> { }, capacity("feature.node.kubernetes.io/widgets", "4")),
                "may change only extended resources listed in node-labeller.io/managed-extended-resources, not: "
                        + "feature.node.kubernetes.io/widgets, feature.node.kubernetes.io/widgets");
        // the kubelet's resources and the rest of status are not its own
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, "status", listed, capacity("cpu", "64")), "not: cpu");
        assertDenied(agentUpdates(WITH_TAINTS_AND_RESOURCES, "status", listed,
                n -> map(n, "status").put("conditions", List.of(Map.of("type", "Ready", "status", "False")))),
                "may change no node status but the capacity and allocatable of its extended resources");
    }
}
