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
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Evaluates the shipped ValidatingAdmissionPolicy with a CEL interpreter (cel-java, with the strings extension the
 * API server also enables) the way the API server does: match conditions, then variables in order, then every
 * validation. Requests are Node updates as the agent's service account would send them.
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
    private static final String AGENT = "system:serviceaccount:node-labeller:node-labeller";

    private static final String NODE = """
            metadata:
              name: n1
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

    /** The denial messages, or null when the policy does not apply to the request at all. */
    static List<String> admit(Map<String, Object> request, Map<String, Object> object, Map<String, Object> oldObject) {
        Map<String, Object> ctx = new HashMap<>(Map.of("request", request, "object", object, "oldObject", oldObject));
        for (var condition : POLICY.getSpec().getMatchConditions()) {
            if (!(Boolean) eval(condition.getExpression(), ctx)) {
                return null;
            }
        }
        Map<String, Object> variables = new LinkedHashMap<>();
        for (Variable v : POLICY.getSpec().getVariables()) {
            ctx.put("variables", Map.copyOf(variables));
            variables.put(v.getName(), eval(v.getExpression(), ctx));
        }
        ctx.put("variables", Map.copyOf(variables));
        List<String> denials = new ArrayList<>();
        for (Validation v : POLICY.getSpec().getValidations()) {
            if (!(Boolean) eval(v.getExpression(), ctx)) {
                denials.add(v.getMessageExpression() != null ? (String) eval(v.getMessageExpression(), ctx) : v.getMessage());
            }
        }
        return denials;
    }

    static Object eval(String expression, Map<String, Object> ctx) {
        try {
            CelValidationResult compiled = CEL.compile(expression);
            if (compiled.hasError()) {
                throw new AssertionError("does not compile: " + expression + "\n" + compiled.getErrorString());
            }
            return CEL.createProgram(compiled.getAst()).eval(ctx);
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError("cannot evaluate: " + expression + ": " + e.getMessage(), e);
        }
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

    static Map<String, Object> request(String user, List<String> boundNode, String subResource) {
        Map<String, Object> extra = boundNode == null ? Map.of() : Map.of("authentication.kubernetes.io/node-name", boundNode);
        return Map.of("userInfo", Map.of("username", user, "extra", extra), "subResource", subResource);
    }

    static List<String> agentUpdates(Consumer<Map<String, Object>> change) {
        return admit(request(AGENT, List.of("n1"), ""), node(change), node(n -> { }));
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

    @Test
    void theAgentMayAddChangeAndRemoveItsLabelsAndAnnotationOnItsOwnNode() {
        assertEquals(List.of(), agentUpdates(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB")
                .andThen(label("feature.node.kubernetes.io/kernel-version.major", "7"))
                .andThen(label("feature.node.kubernetes.io/pci-0300_1af4.present", null))
                .andThen(label("sub.feature.node.kubernetes.io/x", "y"))
                .andThen(n -> map(map(n, "metadata"), "annotations").put("node-labeller.io/managed-labels", "a,b"))));
        assertEquals(List.of(), agentUpdates(n -> { }), "a no-op update");
    }

    @Test
    void onlyTheNodeNamedInTheToken() {
        List<String> other = agentUpdates(n -> map(n, "metadata").put("name", "n2"));
        assertEquals(1, other.size(), other.toString());
        assertTrue(other.get(0).contains("(n1), not n2"), other.get(0));
        List<String> unbound = admit(request(AGENT, null, ""), node(label("nvidia.com/x", "y")), node(n -> { }));
        assertEquals(1, unbound.size());
        assertTrue(unbound.get(0).contains("not a pod-bound token"), unbound.get(0));
    }

    @Test
    void labelsOutsideItsDomainsAreDenied() {
        for (var change : List.of(label("node-role.kubernetes.io/gpu", ""), label("kubernetes.io/hostname", "evil"),
                label("kubernetes.io/hostname", null), label("evilnvidia.com/x", "1"), label("nvidia.com.evil.io/x", "1"),
                label("unprefixed", "1"), label("feature.node.kubernetes.io.evil/x", "1"))) {
            List<String> denials = agentUpdates(change);
            assertEquals(1, denials.size(), denials.toString());
            assertTrue(denials.get(0).startsWith("node-labeller may change only labels under feature.node.kubernetes.io/, nvidia.com/"),
                    denials.get(0));
        }
    }

    @Test
    void spec_status_otherAnnotationsAndFinalizersAreDenied() {
        assertEquals(1, agentUpdates(n -> map(n, "spec").put("unschedulable", true)).size());
        assertEquals(1, agentUpdates(n -> map(n, "spec").put("taints", List.of())).size());
        assertEquals(1, agentUpdates(n -> map(map(n, "metadata"), "annotations").put("other.io/x", "y")).size());
        assertEquals(1, agentUpdates(n -> map(map(n, "metadata"), "annotations").remove("volumes.kubernetes.io/controller-managed-attach-detach")).size());
        assertEquals(1, agentUpdates(n -> map(n, "metadata").put("finalizers", List.of("x"))).size());
        List<String> status = admit(request(AGENT, List.of("n1"), "status"), node(n -> { }), node(n -> { }));
        assertEquals(List.of("node-labeller may not write node status"), status);
    }

    @Test
    void aNodeWithoutLabelsOrAnnotationsCanBeLabelled() {
        Map<String, Object> bare = node(n -> {
            map(n, "metadata").remove("labels");
            map(n, "metadata").remove("annotations");
        });
        Map<String, Object> labelled = node(n -> {
            map(n, "metadata").remove("annotations");
            map(n, "metadata").put("labels", new LinkedHashMap<>(Map.of("nvidia.com/gpu.present", "true")));
        });
        assertEquals(List.of(), admit(request(AGENT, List.of("n1"), ""), labelled, bare));
    }

    @Test
    void otherUsersAreNotConcerned() {
        assertEquals(null, admit(request("system:node:n1", null, ""), node(label("kubernetes.io/hostname", "x")), node(n -> { })));
        assertEquals(null, admit(request("system:serviceaccount:other:node-labeller", List.of("n1"), ""),
                node(label("x", "y")), node(n -> { })));
        assertFalse(POLICY.getSpec().getMatchConditions().isEmpty());
    }
}
