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
 * labels left from GPUs taken out.
 *
 * @param role          this agent's role
 * @param gpuLabel      whether a key is one of node-labeller's GPU labels
 * @param presenceKnown whether this agent's labelling can produce {@value #PRESENT} (the pci source and the nvidia
 *                      labeler run, the whitelist admits it): only then does its absence mean "no GPU"
 */
public record Part(Role role, Predicate<String> gpuLabel, boolean presenceKnown) {

    /** The GPU label that the host agent writes, from PCI, and that brings the GPU agent to a node. */
    public static final String PRESENT = "nvidia.com/gpu.present";

    /** One agent for the whole install. */
    public static final Part ALL = new Part(Role.ALL, k -> false, false);

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
            case HOST -> !gpuAgentKey(key);
            case GPU -> gpuAgentKey(key);
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
            return null;
        }
        return role == Role.HOST
                ? "a GPU label, written by the install's GPU agent (--role gpu): this agent runs with --role host"
                : "not a GPU label: the GPU agent (--role gpu) writes GPU Feature Discovery's labels only";
    }
}
