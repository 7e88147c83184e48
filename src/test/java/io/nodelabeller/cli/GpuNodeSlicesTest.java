package io.nodelabeller.cli;

import io.nodelabeller.feature.DeviceSlices;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The slices are read on a GPU node only, opened once; a node not seen concludes nothing. */
class GpuNodeSlicesTest {

    @Test
    void theFeedOpensOnceTheNodeIsAGpuNodeAndNotBefore() throws Exception {
        AtomicReference<Map<String, String>> labels = new AtomicReference<>(null);
        AtomicInteger opened = new AtomicInteger();
        DeviceSlices.View read = new DeviceSlices.View(List.of(new DeviceSlices.Device("s", "gpu-0", Map.of("type", "gpu"),
                Map.of())), true, "1 ResourceSlice(s)");
        GpuNodeSlices slices = new GpuNodeSlices(labels::get, () -> {
            opened.incrementAndGet();
            return () -> read;
        });
        assertFalse(slices.current().known(), "the node not seen (an API error): nothing is concluded");
        labels.set(Map.of("kubernetes.io/hostname", "n1"));
        assertSame(GpuNodeSlices.NOT_A_GPU_NODE, slices.await(Duration.ofSeconds(1)), "no GPU: known, no slices, no feed");
        labels.set(Map.of("nvidia.com/gpu.present", "false"));
        assertSame(GpuNodeSlices.NOT_A_GPU_NODE, slices.current());
        assertEquals(0, opened.get());
        labels.set(Map.of("nvidia.com/gpu.present", "true"));
        assertSame(read, slices.await(Duration.ofSeconds(1)));
        labels.set(null); // an error since: the open feed still answers
        assertSame(read, slices.current());
        assertEquals(1, opened.get(), "opened once, and kept");
    }
}
