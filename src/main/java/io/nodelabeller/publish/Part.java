package io.nodelabeller.publish;

import io.nodelabeller.config.Role;

import java.util.Map;
import java.util.function.Predicate;

/**
 * The part of its install's labels an agent keeps on the node, by its {@link Role}. Two agents of one install on a GPU
 * node (the host agent and the GPU agent) share the install's tracking annotations; each adds, changes and removes
 * only the labels of its part, and leaves the other's listed as they are. A key moves to the other part only by a
 * change of role, never by a removal: an install upgraded from one agent to two keeps every label.
 *
 * <p>The GPU agent's part: node-labeller's GPU labels ({@code gpuLabel}) but {@value #PRESENT}. The host agent's: every
 * other key — and the GPU agent's part as well on a node whose PCI scan finds no NVIDIA GPU (no {@value #PRESENT}
 * among the host agent's labels, where it can know it: {@code presenceKnown}), where no GPU agent runs to remove GPU
 * labels left from GPUs taken out, and on a node where no GPU agent of the install runs at all ({@link #on}: the host
 * agent labels its GPUs from their ResourceSlices there).
 *
 * @param role          this agent's role
 * @param gpuLabel      whether a key is one of node-labeller's GPU labels
 * @param presenceKnown whether this agent's labelling can produce {@value #PRESENT} (the pci source and the nvidia
 *                      labeler run, the whitelist admits it): only then does its absence mean "no GPU"
 * @param sliceLabel    whether a key is one of the GPU labels a ResourceSlice gives (the dra labeler's)
 * @param node          where the GPU agent stands on this node ({@link #on})
 */
public record Part(Role role, Predicate<String> gpuLabel, boolean presenceKnown, Predicate<String> sliceLabel, Node node) {

    /** Where the install's GPU agent stands on a node. */
    public enum Node {
        /** It runs here (or may): the GPU labels but {@value #PRESENT} are its own. */
        GPU_AGENT,
        /** The install has none: the host agent writes every label. */
        NO_GPU_AGENT,
        /**
         * The node is in the GPU Operator's DRA model, which keeps the GPU agent off: the host agent writes the GPU
         * labels a ResourceSlice gives and removes the others.
         */
        DRA
    }

    /** The GPU label that the host agent writes, from PCI, and that brings the GPU agent to a node. */
    public static final String PRESENT = "nvidia.com/gpu.present";

    /** One agent for the whole install. */
    public static final Part ALL = new Part(Role.ALL, k -> false, false, k -> false, Node.GPU_AGENT);

    /**
     * The node label the GPU Operator sets to {@value #DRA_MODE_VALUE} on a node it runs in its DRA model (GPUCluster):
     * the NVIDIA DRA driver describes its GPUs in ResourceSlices, and no GPU Feature Discovery — nor the install's GPU
     * agent, whose DaemonSet stays off such a node — runs there.
     */
    public static final String DRA_MODE = "nvidia.com/gpu-operator.resource-allocation.mode";
    public static final String DRA_MODE_VALUE = "dra";

    /** The labeler whose GPU labels (from the node's ResourceSlices) yield to the GPU agent's wherever that one runs. */
    public static final String SLICE_LABELER = "dra";

    /** The part of an agent whose install has a GPU agent (or may have one) on every GPU node. */
    public Part(Role role, Predicate<String> gpuLabel, boolean presenceKnown, Predicate<String> sliceLabel) {
        this(role, gpuLabel, presenceKnown, sliceLabel, Node.GPU_AGENT);
    }

    /**
     * This part on a node labelled {@code nodeLabels}: the host agent writes the GPU agent's labels too — from the
     * node's ResourceSlices — where no GPU agent of the install runs: the install names none ({@code noGpuAgent}), or
     * the node is in the GPU Operator's DRA model ({@value #DRA_MODE}={@value #DRA_MODE_VALUE}, which keeps the GPU
     * agent off; there the host agent writes only the GPU labels a ResourceSlice gives). The admission policy holds both
     * agents to the same rule, so a label has one writer on every node.
     */
    public Part on(Map<String, String> nodeLabels, boolean noGpuAgent) {
        Node where = noGpuAgent ? Node.NO_GPU_AGENT : draNode(nodeLabels) ? Node.DRA : Node.GPU_AGENT;
        return where == node ? this : new Part(role, gpuLabel, presenceKnown, sliceLabel, where);
    }

    /** Whether a node with these labels is in the GPU Operator's DRA model. */
    public static boolean draNode(Map<String, String> nodeLabels) {
        return nodeLabels != null && DRA_MODE_VALUE.equals(nodeLabels.get(DRA_MODE));
    }

    /** Whether another agent of the install writes labels on the same node: the tracking annotations are shared. */
    public boolean shared() {
        return role != Role.ALL;
    }

    /** Whether {@code key} is the GPU agent's: a GPU label but {@value #PRESENT}. */
    public boolean gpuAgentKey(String key) {
        return !PRESENT.equals(key) && gpuLabel.test(key);
    }

    /** The label keys that are this agent's whatever the node has: the part at start, before any labelling. */
    public boolean owns(String key) {
        return switch (role) {
            case ALL -> true;
            case HOST -> node != Node.GPU_AGENT || !gpuAgentKey(key);
            case GPU -> node == Node.GPU_AGENT && gpuAgentKey(key);
        };
    }

    /** The label keys this agent keeps in a cycle whose labels are {@code labels} (after retention). */
    public Predicate<String> keeps(Map<String, String> labels) {
        if (role == Role.HOST && presenceKnown && !labels.containsKey(PRESENT)) {
            return k -> true; // no NVIDIA GPU on the PCI bus: the GPU labels are this agent's to remove
        }
        return this::owns;
    }

    /** Why {@code key} is not written by this agent, for the one warning naming it; null when it is. */
    public String problem(String key) {
        if (owns(key)) {
            return role == Role.HOST && node == Node.DRA && gpuAgentKey(key) && !sliceLabel.test(key)
                    ? "on a node in the GPU Operator's DRA model the host agent writes only the GPU labels a ResourceSlice"
                    + " gives (docs/gpu.md)" : null;
        }
        if (role == Role.HOST) {
            return "a GPU label, written by the install's GPU agent (--role gpu): this agent runs with --role host";
        }
        return node == Node.DRA ? "the node is in the GPU Operator's DRA model (" + DRA_MODE + "=" + DRA_MODE_VALUE
                + "): the host agent writes its GPU labels, from its ResourceSlices"
                : "not a GPU label: the GPU agent (--role gpu) writes GPU Feature Discovery's labels only";
    }
}
