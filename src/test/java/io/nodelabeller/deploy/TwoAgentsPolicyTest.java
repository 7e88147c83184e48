package io.nodelabeller.deploy;

import io.nodelabeller.deploy.AdmissionPolicyTest.Decision;
import io.nodelabeller.deploy.AdmissionRequests.User;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Consumer;

import static io.nodelabeller.deploy.AdmissionPolicyTest.AGENT;
import static io.nodelabeller.deploy.AdmissionPolicyTest.GPU_AGENT;
import static io.nodelabeller.deploy.AdmissionPolicyTest.OWNED;
import static io.nodelabeller.deploy.AdmissionPolicyTest.TWO_AGENTS;
import static io.nodelabeller.deploy.AdmissionPolicyTest.admit;
import static io.nodelabeller.deploy.AdmissionPolicyTest.annotation;
import static io.nodelabeller.deploy.AdmissionPolicyTest.assertAllowed;
import static io.nodelabeller.deploy.AdmissionPolicyTest.assertDenied;
import static io.nodelabeller.deploy.AdmissionPolicyTest.gpuNodeFeature;
import static io.nodelabeller.deploy.AdmissionPolicyTest.label;
import static io.nodelabeller.deploy.AdmissionPolicyTest.managed;
import static io.nodelabeller.deploy.AdmissionPolicyTest.node;
import static io.nodelabeller.deploy.AdmissionPolicyTest.nodeFeature;
import static io.nodelabeller.deploy.AdmissionPolicyTest.writeNodeFeature;

/**
 * Two agents of one install (overlays/gpu, overlays/nfd-compat, Helm gpu.enabled), each its own service account, the
 * GPU agent's named by the binding's node-labeller.io/gpu-agent: the real API server's policies hold each to its part
 * of the install's labels, on the node and in nfd-compat's NodeFeature objects.
 */
class TwoAgentsPolicyTest {

    /** A GPU node of {@link #TWO_AGENTS}: the host agent's labels and gpu.present, the GPU agent's, one shared list. */
    static Map<String, Object> twoAgentsNode() {
        return node(label("nvidia.com/gpu.present", "true").andThen(label("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"))
                .andThen(label("nvidia.com/gpu.count", "8"))
                .andThen(managed(OWNED + ",nvidia.com/gpu.count,nvidia.com/gpu.present,nvidia.com/gpu.product")));
    }

    static Decision twoAgents(User user, Consumer<Map<String, Object>> change) {
        Map<String, Object> next = twoAgentsNode();
        change.accept(next);
        return admit(TWO_AGENTS, AdmissionRequests.nodeUpdate("n1", null, user), next, twoAgentsNode());
    }

    /**
     * The GPU agent (its own service account, named by the binding) writes GPU Feature Discovery's labels and nothing
     * else: not the host agent's nvidia.com/gpu.present (which takes the Operator's components and the GPU agent off
     * the node), not a host label, listed or not, no annotation.
     */
    @Test
    void theGpuAgentWritesOnlyGpuFeatureDiscoverysLabels() {
        assertAllowed(twoAgents(GPU_AGENT, label("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")));
        assertAllowed(twoAgents(GPU_AGENT, label("nvidia.com/gpu.model.NVIDIA-A100-SXM4-80GB.count", "8")
                .andThen(managed(OWNED + ",nvidia.com/gpu.count,nvidia.com/gpu.model.NVIDIA-A100-SXM4-80GB.count,"
                        + "nvidia.com/gpu.present,nvidia.com/gpu.product"))));
        String only = "may write only GPU Feature Discovery's labels, not: ";
        assertDenied(twoAgents(GPU_AGENT, label("nvidia.com/gpu.present", "false")), only + "nvidia.com/gpu.present");
        assertDenied(twoAgents(GPU_AGENT, label("feature.node.kubernetes.io/pci-0300_1af4.present", null)
                .andThen(managed("feature.node.kubernetes.io/kernel-version.major,nvidia.com/gpu.count,nvidia.com/gpu.present,"
                        + "nvidia.com/gpu.product"))), only + "feature.node.kubernetes.io/pci-0300_1af4.present");
        // unlisting a host label leaves it unowned: the host agent could then no longer change or remove it
        assertDenied(twoAgents(GPU_AGENT, managed("feature.node.kubernetes.io/kernel-version.major,nvidia.com/gpu.count,"
                + "nvidia.com/gpu.present,nvidia.com/gpu.product")), only + "feature.node.kubernetes.io/pci-0300_1af4.present");
        assertDenied(twoAgents(GPU_AGENT, label("feature.node.kubernetes.io/x", "1")
                .andThen(managed(OWNED + ",feature.node.kubernetes.io/x,nvidia.com/gpu.count,nvidia.com/gpu.present,"
                        + "nvidia.com/gpu.product"))), only + "feature.node.kubernetes.io/x");
        assertDenied(twoAgents(GPU_AGENT, annotation("feature.node.kubernetes.io/x", "1")
                .andThen(annotation("node-labeller.io/managed-annotations", "feature.node.kubernetes.io/x"))),
                "may write no annotation, taint or extended resource");
    }

    /**
     * The host agent writes everything else of the write scope and nvidia.com/gpu.present, never a label of the GPU
     * agent's — but removes them with gpu.present from a node whose GPUs were taken out, where no GPU agent runs.
     */
    @Test
    void theHostAgentLeavesTheGpuAgentsLabelsAloneWhileTheNodeHasGpus() {
        assertAllowed(twoAgents(AGENT, label("feature.node.kubernetes.io/kernel-version.major", "7")));
        String not = "may not add, change or keep listed the GPU agent's labels (node-labeller.io/gpu-agent: node-labeller-gpu),"
                + " nor remove them from a node with nvidia.com/gpu.present=true, not: ";
        assertDenied(twoAgents(AGENT, label("nvidia.com/gpu.product", "Fake")), not + "nvidia.com/gpu.product");
        assertDenied(twoAgents(AGENT, label("nvidia.com/gpu.product", null)
                .andThen(managed(OWNED + ",nvidia.com/gpu.count,nvidia.com/gpu.present"))), not + "nvidia.com/gpu.product");
        assertDenied(twoAgents(AGENT, label("nvidia.com/mig-1g.10gb.count", "7").andThen(managed(OWNED
                + ",nvidia.com/gpu.count,nvidia.com/gpu.present,nvidia.com/gpu.product,nvidia.com/mig-1g.10gb.count"))),
                not + "nvidia.com/mig-1g.10gb.count");
        // GPUs taken out: the host agent removes gpu.present and, in the same write, the GPU agent's labels
        assertAllowed(twoAgents(AGENT, label("nvidia.com/gpu.present", null).andThen(label("nvidia.com/gpu.product", null))
                .andThen(label("nvidia.com/gpu.count", null)).andThen(managed(OWNED))));
        // ...and not while it keeps gpu.present=true
        assertDenied(twoAgents(AGENT, label("nvidia.com/gpu.product", null).andThen(label("nvidia.com/gpu.count", null))
                .andThen(managed(OWNED + ",nvidia.com/gpu.present"))), not + "nvidia.com/gpu.");
    }

    /**
     * nfd-compat's two agents each publish their own object with their own labels: neither writes the other's object,
     * the GPU agent publishes only GPU Feature Discovery's labels, the host agent none of them.
     */
    @Test
    void eachAgentPublishesOnlyItsOwnNodeFeature() {
        assertDenied(writeNodeFeature("CREATE", GPU_AGENT, gpuNodeFeature("n1", "n1"), null),
                "only its own NodeFeature (node-labeller-gpu-n1)");
        assertDenied(writeNodeFeature("UPDATE", GPU_AGENT, nodeFeature("n1", "n1", Map.of()), nodeFeature("n1", "n1")),
                "only its own NodeFeature (node-labeller-gpu-n1)");
        assertDenied(writeNodeFeature("CREATE", AGENT, gpuNodeFeature("node-labeller-gpu-n1", "n1"), null),
                "only its own NodeFeature (n1)");
        assertDenied(writeNodeFeature("CREATE", GPU_AGENT, nodeFeature("node-labeller-gpu-n1", "n1",
                Map.of("nvidia.com/gpu.product", "X", "feature.node.kubernetes.io/pci-10de.present", "true")), null),
                "may publish only GPU Feature Discovery's labels, not: feature.node.kubernetes.io/pci-10de.present");
        assertDenied(writeNodeFeature("CREATE", GPU_AGENT, nodeFeature("node-labeller-gpu-n1", "n1",
                Map.of("nvidia.com/gpu.present", "false")), null), "not: nvidia.com/gpu.present");
        assertDenied(writeNodeFeature("CREATE", AGENT, nodeFeature("n1", "n1", Map.of("nvidia.com/gpu.present", "true",
                "nvidia.com/gpu.product", "Fake")), null), "may not publish the GPU agent's labels"
                + " (node-labeller.io/gpu-agent: node-labeller-gpu), not: nvidia.com/gpu.product");
    }

}
