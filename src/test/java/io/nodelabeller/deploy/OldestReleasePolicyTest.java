package io.nodelabeller.deploy;

import io.nodelabeller.deploy.AdmissionPolicyTest.Decision;
import io.nodelabeller.deploy.AdmissionPolicyTest.Installed;
import io.nodelabeller.deploy.AdmissionRequests.User;
import io.nodelabeller.publish.Bookkeeping;
import io.nodelabeller.publish.NodePatch;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.SortedMap;
import java.util.function.Consumer;

import static io.nodelabeller.deploy.AdmissionPolicyTest.AGENT;
import static io.nodelabeller.deploy.AdmissionPolicyTest.BASE;
import static io.nodelabeller.deploy.AdmissionPolicyTest.GPU_AGENT;
import static io.nodelabeller.deploy.AdmissionPolicyTest.NODE_FEATURE;
import static io.nodelabeller.deploy.AdmissionPolicyTest.OWNED;
import static io.nodelabeller.deploy.AdmissionPolicyTest.TWO_AGENTS;
import static io.nodelabeller.deploy.AdmissionPolicyTest.assertAllowed;
import static io.nodelabeller.deploy.AdmissionPolicyTest.assertDenied;
import static io.nodelabeller.deploy.AdmissionPolicyTest.label;
import static io.nodelabeller.deploy.AdmissionPolicyTest.m;
import static io.nodelabeller.deploy.AdmissionPolicyTest.managed;
import static io.nodelabeller.deploy.AdmissionPolicyTest.map;
import static io.nodelabeller.deploy.AdmissionPolicyTest.node;
import static io.nodelabeller.deploy.AdmissionPolicyTest.nodeFeature;
import static io.nodelabeller.deploy.TwoAgentsPolicyTest.twoAgentsNode;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The policies' verdicts that an install depends on, from kube-apiserver serving as Kubernetes 1.33 (the oldest release
 * the manifests and the chart support; {@code --emulated-version=1.33}): the agents' own writes admitted, each role
 * held to its part, another node, a control key and a reserved domain denied, nfd-compat's objects likewise. The
 * whole set of cases runs on the newest release ({@link AdmissionPolicyTest}, {@link InstallPolicyTest}); both
 * releases type-check every shipped policy ({@link ServerManifestsTest}).
 */
class OldestReleasePolicyTest {

    static final String RELEASE = "1.33";

    static ServerJudge judge() {
        return ServerJudge.shared(RELEASE);
    }

    static Decision admit(Installed installed, User user, Map<String, Object> object, Map<String, Object> oldObject) {
        return judge().admit(installed, AdmissionRequests.nodeUpdate("n1", null, user), object, oldObject);
    }

    static Decision change(Installed installed, User user, Map<String, Object> from, Consumer<Map<String, Object>> change) {
        Map<String, Object> next = AdmissionPolicyTest.copy(from);
        change.accept(next);
        return admit(installed, user, next, from);
    }

    /** Both agents' first labelling of a GPU node, and the host agent's removal of everything when its GPUs are gone. */
    @Test
    void theAgentsWritesAreAdmitted() {
        Map<String, Object> bare = node(x -> {
            map(x, "metadata").remove("labels");
            map(x, "metadata").remove("annotations");
        });
        SortedMap<String, String> host = m("feature.node.kubernetes.io/kernel-version.major", "6",
                "feature.node.kubernetes.io/pci-0302_10de.present", "true", "nvidia.com/gpu.present", "true");
        Map<String, Object> labelled = AdmissionPolicyTest.agentWrites(judge(), TWO_AGENTS, AGENT, Bookkeeping.DEFAULT, bare,
                NodePatch.Desired.labels(host));
        SortedMap<String, String> both = new java.util.TreeMap<>(host);
        both.putAll(m("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count", "8",
                "nvidia.com/gpu.model.NVIDIA-A100-SXM4-80GB.count", "8", "nvidia.com/mig-1g.10gb.count", "7"));
        Map<String, Object> gpu = AdmissionPolicyTest.agentWrites(judge(), TWO_AGENTS, GPU_AGENT, Bookkeeping.DEFAULT,
                labelled, NodePatch.Desired.labels(both));
        assertEquals(both, ((Map<?, ?>) gpu.get("metadata")).get("labels"), "both parts");
        Map<String, Object> gone = AdmissionPolicyTest.agentWrites(judge(), TWO_AGENTS, AGENT, Bookkeeping.DEFAULT, gpu,
                NodePatch.Desired.labels(new java.util.TreeMap<>()));
        Object left = ((Map<?, ?>) gone.get("metadata")).get("labels");
        assertEquals(Map.of(), left == null ? Map.of() : left, "all removed with gpu.present");
    }

    @Test
    void eachRoleIsHeldToItsPart() {
        assertDenied(change(TWO_AGENTS, GPU_AGENT, twoAgentsNode(), label("nvidia.com/gpu.present", "false")),
                "may write only GPU Feature Discovery's labels, not: nvidia.com/gpu.present");
        assertDenied(change(TWO_AGENTS, AGENT, twoAgentsNode(), label("nvidia.com/gpu.product", "Fake")),
                "not: nvidia.com/gpu.product");
        assertAllowed(change(TWO_AGENTS, GPU_AGENT, twoAgentsNode(), label("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")));
    }

    @Test
    void anotherNodeAControlKeyAndAReservedDomainAreDenied() {
        Map<String, Object> start = node(n -> { });
        assertDenied(judge().admit(BASE, AdmissionRequests.nodeUpdate("n2", null, AGENT), node(n -> {
            map(n, "metadata").put("name", "n2");
        }), node(n -> map(n, "metadata").put("name", "n2"))), "bound to (n1), not n2");
        assertDenied(change(BASE, AGENT, start, label("nvidia.com/mig.config", "all-1g.10gb")
                .andThen(managed(OWNED + ",nvidia.com/mig.config"))), "not: nvidia.com/mig.config");
        Installed parent = BASE.withScope(Map.of(io.nodelabeller.label.WriteScope.LABEL_DOMAINS, "io"));
        assertDenied(change(parent, AGENT, start, label("node-restriction.kubernetes.io/x", "1")
                .andThen(managed(OWNED + ",node-restriction.kubernetes.io/x"))), "not: node-restriction.kubernetes.io/x");
    }

    @Test
    void nfdCompatsObjectsAreHeldToTheirNodeAndRole() {
        Map<String, Object> gpuObject = nodeFeature("node-labeller-gpu-n1", "n1", Map.of("nvidia.com/gpu.product", "X"));
        assertAllowed(judge().admit(NODE_FEATURE, AdmissionRequests.nodeFeature("CREATE", "node-labeller-gpu-n1",
                "node-labeller", GPU_AGENT), gpuObject, null));
        assertDenied(judge().admit(NODE_FEATURE, AdmissionRequests.nodeFeature("CREATE", "n2", "node-labeller", AGENT),
                nodeFeature("n2", "n2"), null), "not n2 for 'n2'");
        assertDenied(judge().admit(NODE_FEATURE, AdmissionRequests.nodeFeature("CREATE", "n1", "node-labeller", GPU_AGENT),
                nodeFeature("n1", "n1", Map.of("nvidia.com/gpu.product", "X")), null), "only its own NodeFeature");
    }
}
