package io.nodelabeller.publish;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Role;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two agents of one install on one node ({@link Part}): the plans each computes on the same node. Each adds, changes
 * and removes only its part; the other part stays listed while the node has it; a plan that rewrites the shared list
 * is pinned to the node's resourceVersion (a concurrent write of the other agent then gets 409 instead of losing its
 * keys from the list).
 */
class SharedInstallPatchTest {

    private static final Part HOST = new Part(Role.HOST, Catalog.gpuLabel(), true, Catalog.sliceLabel());
    private static final Part GPU = new Part(Role.GPU, Catalog.gpuLabel(), true, Catalog.sliceLabel());
    private static final String KERNEL = "feature.node.kubernetes.io/kernel-version.full";
    private static final String PRODUCT = "nvidia.com/gpu.product";
    private static final String PRESENT = "nvidia.com/gpu.present";
    private static final String MIG_COUNT = "nvidia.com/mig-1g.10gb.count";

    private static NodePatch.Node node(Map<String, String> labels, String listed) {
        return new NodePatch.Node(labels, Map.of(NodePatch.MANAGED_ANNOTATION, listed), "41", null, null, null);
    }

    private static NodePatch.Plan plan(Part part, NodePatch.Node node, Map<String, String> desired) {
        SortedMap<String, String> d = new TreeMap<>(desired);
        return NodePatch.plan(node, NodePatch.Desired.labels(d), Bookkeeping.DEFAULT, part.keeps(d), part.shared());
    }

    private static final Map<String, String> ON_NODE = Map.of(KERNEL, "6.8.0-45-generic", PRESENT, "true",
            PRODUCT, "NVIDIA-A100-SXM4-80GB", MIG_COUNT, "7", "team.example.com/owner", "ml");
    private static final String LISTED = String.join(",", new java.util.TreeSet<>(List.of(KERNEL, PRESENT, PRODUCT, MIG_COUNT)));

    @Test
    void theHostAgentChangesItsLabelsAndLeavesTheGpuAgentsListed() {
        NodePatch.Plan p = plan(HOST, node(ON_NODE, LISTED), Map.of(KERNEL, "6.8.0-60-generic", PRESENT, "true"));
        assertEquals(List.of(new NodePatch.Op("replace", "/metadata/labels/feature.node.kubernetes.io~1kernel-version.full",
                "6.8.0-60-generic")), p.node(), "no removal of gpu.product or the MIG count, no list change, no pin");
    }

    @Test
    void theGpuAgentAddsItsLabelAndThePatchThatRewritesTheListIsPinned() {
        NodePatch.Plan p = plan(GPU, node(ON_NODE, LISTED), Map.of(PRODUCT, "NVIDIA-A100-SXM4-80GB", MIG_COUNT, "7",
                "nvidia.com/gpu.count", "8"));
        assertEquals(new NodePatch.Op("replace", "/metadata/resourceVersion", "41"), p.node().get(0));
        assertEquals(new NodePatch.Op("add", "/metadata/labels/nvidia.com~1gpu.count", "8"), p.node().get(1));
        NodePatch.Op list = p.node().get(2);
        assertEquals("/metadata/annotations/node-labeller.io~1managed-labels", list.path());
        assertEquals(KERNEL + ",nvidia.com/gpu.count," + PRESENT + "," + PRODUCT + "," + MIG_COUNT, list.value(),
                "the host agent's keys stay listed");
        assertEquals(3, p.node().size());
    }

    @Test
    void eachRemovesOnlyItsOwnLabelsAndAKeyTheNodeLostIsUnlisted() {
        Map<String, String> lost = new TreeMap<>(ON_NODE);
        lost.remove(KERNEL); // someone removed it: the GPU agent unlists it, never re-adds it
        NodePatch.Plan p = plan(GPU, node(lost, LISTED), Map.of(PRODUCT, "NVIDIA-A100-SXM4-80GB"));
        assertEquals(List.of(new NodePatch.Op("replace", "/metadata/resourceVersion", "41"),
                new NodePatch.Op("remove", "/metadata/labels/nvidia.com~1mig-1g.10gb.count", null),
                new NodePatch.Op("replace", "/metadata/annotations/node-labeller.io~1managed-labels", PRESENT + "," + PRODUCT)),
                p.node());
    }

    @Test
    void withoutAnNvidiaGpuOnThePciBusTheHostAgentRemovesTheGpuLabels() {
        NodePatch.Plan p = plan(HOST, node(ON_NODE, LISTED), Map.of(KERNEL, "6.8.0-45-generic"));
        assertEquals(List.of(new NodePatch.Op("replace", "/metadata/resourceVersion", "41"),
                new NodePatch.Op("remove", "/metadata/labels/nvidia.com~1gpu.present", null),
                new NodePatch.Op("remove", "/metadata/labels/nvidia.com~1gpu.product", null),
                new NodePatch.Op("remove", "/metadata/labels/nvidia.com~1mig-1g.10gb.count", null),
                new NodePatch.Op("replace", "/metadata/annotations/node-labeller.io~1managed-labels", KERNEL)), p.node());
        // ...but only where it can know: without the pci source (or the nvidia labeler) an absent gpu.present says nothing
        Part blind = new Part(Role.HOST, Catalog.gpuLabel(), false, Catalog.sliceLabel());
        NodePatch.Plan q = plan(blind, node(ON_NODE, LISTED), Map.of(KERNEL, "6.8.0-45-generic", PRESENT, "true"));
        assertTrue(q.isEmpty(), q.toString());
    }

    @Test
    void theKeysOfEachPart() {
        assertNull(HOST.problem(PRESENT));
        assertNull(HOST.problem(KERNEL));
        assertNull(HOST.problem("nvidia.com/gds.capable"), "a rule's nvidia.com key is the host agent's");
        assertTrue(HOST.problem(PRODUCT).contains("--role gpu"));
        assertTrue(HOST.problem("nvidia.com/gpu.model.Tesla-V100-SXM2-32GB.count").contains("--role gpu"));
        assertNull(GPU.problem(PRODUCT));
        assertNull(GPU.problem("nvidia.com/gfd.timestamp"));
        assertTrue(GPU.problem(PRESENT).contains("GPU Feature Discovery's labels only"));
        assertTrue(GPU.problem(KERNEL).contains("GPU Feature Discovery's labels only"));
        assertTrue(Part.ALL.owns(PRODUCT) && Part.ALL.owns(KERNEL) && !Part.ALL.shared());
    }
}
