package io.nodelabeller.cli;

import io.nodelabeller.feature.DeviceSlices;
import io.nodelabeller.publish.Part;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The node's ResourceSlices, read only on a GPU node: the feed (a LIST and a WATCH, renewed like any informer's) is
 * opened the first time the node, as the node publisher last saw it, carries {@code nvidia.com/gpu.present=true} —
 * this agent's own label from the PCI scan, or the GPU Operator's — and stays open. A node without an NVIDIA GPU never
 * opens it: the NVIDIA DRA driver publishes nothing there, and a fleet's CPU nodes cost the API server nothing more.
 * While the node has not been seen (an API error since) nothing is concluded: the view is unknown.
 */
final class GpuNodeSlices implements DeviceSlices {

    static final View NOT_A_GPU_NODE = new View(List.of(), true,
            "the node has no " + Part.PRESENT + "=true: its ResourceSlices are not read");

    private final Supplier<Map<String, String>> nodeLabels;
    private final Supplier<DeviceSlices> open;
    private DeviceSlices feed;

    /**
     * @param nodeLabels the node's labels as last seen, null when it has not been seen
     * @param open       opens the feed (once)
     */
    GpuNodeSlices(Supplier<Map<String, String>> nodeLabels, Supplier<DeviceSlices> open) {
        this.nodeLabels = nodeLabels;
        this.open = open;
    }

    @Override
    public View current() {
        DeviceSlices f = feed();
        return f == null ? notOpen() : f.current();
    }

    @Override
    public View await(Duration timeout) throws InterruptedException {
        DeviceSlices f = feed();
        return f == null ? notOpen() : f.await(timeout);
    }

    private View notOpen() {
        return nodeLabels.get() == null ? View.UNKNOWN : NOT_A_GPU_NODE;
    }

    /** The feed, opened now if the node has become a GPU node; null while it is not one. */
    private synchronized DeviceSlices feed() {
        if (feed == null) {
            Map<String, String> labels = nodeLabels.get();
            if (labels != null && "true".equals(labels.get(Part.PRESENT))) {
                feed = open.get();
            }
        }
        return feed;
    }
}
