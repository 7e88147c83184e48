package io.nodelabeller.publish;

import io.nodelabeller.config.Role;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which agent keeps which GPU label on a node: the GPU agent the GPU Feature Discovery labels wherever it may run; the
 * host agent every other key, and the GPU labels too where no GPU agent of the install runs — a node in the GPU
 * Operator's DRA model, or an install that names no GPU agent.
 */
class PartTest {

    private static final Predicate<String> GPU_LABEL = k -> k.startsWith("nvidia.com/gpu.");
    private static final Predicate<String> SLICE_LABEL = k -> k.equals("nvidia.com/gpu.product");
    private static final Map<String, String> DRA = Map.of(Part.DRA_MODE, "dra");
    private static final Map<String, String> DEVICE_PLUGIN = Map.of(Part.DRA_MODE, "device-plugin");

    @Test
    void onANodeWithAGpuAgentEachKeepsItsOwnPart() {
        Part host = new Part(Role.HOST, GPU_LABEL, true, SLICE_LABEL).on(DEVICE_PLUGIN, false);
        Part gpu = new Part(Role.GPU, GPU_LABEL, false, SLICE_LABEL).on(DEVICE_PLUGIN, false);
        assertFalse(host.owns("nvidia.com/gpu.product"));
        assertNotNull(host.problem("nvidia.com/gpu.product"));
        assertTrue(host.owns(Part.PRESENT));
        assertTrue(host.owns("feature.node.kubernetes.io/kernel-version.full"));
        assertTrue(gpu.owns("nvidia.com/gpu.product"));
        assertFalse(gpu.owns(Part.PRESENT));
    }

    @Test
    void onADraNodeTheHostAgentKeepsEveryLabelAndTheGpuAgentNone() {
        Part host = new Part(Role.HOST, GPU_LABEL, true, SLICE_LABEL).on(DRA, false);
        Part gpu = new Part(Role.GPU, GPU_LABEL, false, SLICE_LABEL).on(DRA, false);
        assertTrue(host.owns("nvidia.com/gpu.product"));
        assertNull(host.problem("nvidia.com/gpu.product"));
        assertTrue(host.owns("nvidia.com/gpu.clique"), "kept or removed by the host agent: a former GPU agent's");
        assertTrue(host.problem("nvidia.com/gpu.clique").contains("only the GPU labels a ResourceSlice gives"),
                "but not written: no slice gives it");
        assertFalse(gpu.owns("nvidia.com/gpu.product"));
        assertTrue(gpu.problem("nvidia.com/gpu.product").contains("DRA model"), gpu.problem("nvidia.com/gpu.product"));
    }

    @Test
    void inAnInstallWithoutAGpuAgentTheHostAgentKeepsEveryLabelEverywhere() {
        Part host = new Part(Role.HOST, GPU_LABEL, true, SLICE_LABEL);
        assertTrue(host.on(Map.of(), true).owns("nvidia.com/gpu.product"));
        assertNull(host.on(DRA, true).problem("nvidia.com/gpu.clique"), "one agent writes all, on a DRA node too");
        assertFalse(host.on(Map.of(), false).owns("nvidia.com/gpu.product"), "may have one: never removed on a guess");
        assertSame(host, host.on(null, false), "a node not seen: nothing changes");
    }
}
