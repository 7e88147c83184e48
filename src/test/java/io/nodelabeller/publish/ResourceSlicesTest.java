package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.feature.DeviceSlices;
import io.nodelabeller.testing.ControlPlane;
import io.nodelabeller.testing.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's ResourceSlices as the feed reads them from a real kube-apiserver: only this node's slices of the NVIDIA
 * driver (field selectors the server applies), a change calls back, a pool is used only whole, and where
 * {@code resource.k8s.io/v1} is not served (Kubernetes 1.33) there are no slices, known.
 */
class ResourceSlicesTest {

    private final List<ResourceSlices> feeds = new ArrayList<>();
    private final List<String> created = new ArrayList<>();

    @AfterEach
    void close() {
        feeds.forEach(ResourceSlices::close);
        KubernetesClient admin = ControlPlane.shared().admin();
        created.forEach(n -> admin.genericKubernetesResources(ResourceSlices.CONTEXT).withName(n).delete());
    }

    private ResourceSlices feed(ControlPlane cp, String node, List<ObjectFeed.State> states) {
        ResourceSlices f = new ResourceSlices(cp.admin(), node, ResourceSlices.NVIDIA_GPU_DRIVER, states::add, Duration.ofMinutes(10));
        feeds.add(f);
        return f;
    }

    /** A slice of {@code driver} for {@code node}, named {@code name}, in pool generation {@code generation} of {@code count}. */
    private GenericKubernetesResource slice(String name, String node, String driver, long generation, long count, FakeNvml gpus) {
        Map<String, Object> s = gpus.resourceSlice(node);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = new java.util.LinkedHashMap<>((Map<String, Object>) s.get("spec"));
        spec.put("driver", driver);
        spec.put("pool", Map.of("name", node, "generation", generation, "resourceSliceCount", count));
        Map<String, Object> obj = new java.util.LinkedHashMap<>(s);
        obj.put("metadata", Map.of("name", name));
        obj.put("spec", spec);
        created.add(name);
        return ControlPlane.shared().admin().getKubernetesSerialization().convertValue(obj, GenericKubernetesResource.class);
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        for (int i = 0; i < 1000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertTrue(condition.getAsBoolean(), "timed out waiting: " + what);
    }

    @Test
    void onlyThisNodesSlicesOfTheDriverAreReadAndAChangeCallsBack() throws Exception {
        ControlPlane cp = ControlPlane.shared();
        KubernetesClient admin = cp.admin();
        var slices = admin.genericKubernetesResources(ResourceSlices.CONTEXT);
        FakeNvml two = FakeNvml.nvml().gpus(2, FakeNvml.a100_80gb());
        slices.resource(slice("rs-other-node", "rs-node-2", ResourceSlices.NVIDIA_GPU_DRIVER, 1, 1, two)).create();
        slices.resource(slice("rs-other-driver", "rs-node-1", "gpu.example.com", 1, 1, two)).create();
        List<ObjectFeed.State> states = new CopyOnWriteArrayList<>();
        ResourceSlices feed = feed(cp, "rs-node-1", states);
        AtomicInteger changes = new AtomicInteger();
        feed.watch(changes::incrementAndGet);
        DeviceSlices.View first = feed.await(Duration.ofSeconds(10));
        assertTrue(first.known());
        assertEquals(List.of(), first.devices(), "another node's and another driver's slices are not this node's");
        await(() -> changes.get() == 1, "the first read's callback");

        slices.resource(slice("rs-mine", "rs-node-1", ResourceSlices.NVIDIA_GPU_DRIVER, 1, 1, two)).create();
        await(() -> changes.get() == 2, "a new slice's callback");
        DeviceSlices.View view = feed.current();
        assertEquals(List.of("gpu-0", "gpu-1"), view.devices().stream().map(DeviceSlices.Device::name).toList());
        DeviceSlices.Device d = view.devices().get(0);
        assertEquals("NVIDIA A100-SXM4-80GB", d.attribute("productName"));
        assertEquals("580.159.4", d.attribute("driverVersion"));
        assertEquals("0000:07:00.0", d.attribute("resource.kubernetes.io/pciBusID"));
        assertEquals(Long.toString(81920L * 1024 * 1024), d.capacity().get("memory"), "80Gi in bytes");
        assertEquals(List.of(ObjectFeed.State.SYNCED), states);

        // a pool of two slices, its second one not there yet: unknown, nothing concluded; then whole
        slices.withName("rs-mine").delete();
        slices.resource(slice("rs-mine-a", "rs-node-1", ResourceSlices.NVIDIA_GPU_DRIVER, 2, 2, two)).create();
        await(() -> !feed.current().known(), "the incomplete pool");
        assertTrue(feed.current().why().contains("1 of 2 slices"), feed.current().why());
        slices.resource(slice("rs-mine-b", "rs-node-1", ResourceSlices.NVIDIA_GPU_DRIVER, 2, 2,
                FakeNvml.nvml().gpus(1, FakeNvml.t4()))).create();
        await(() -> feed.current().known(), "the whole pool");
        assertEquals(3, feed.current().devices().size());
    }

    @Test
    void onKubernetes133WithoutResourceV1ThereAreNoSlicesAndThatIsKnown() throws Exception {
        ControlPlane old = ControlPlane.shared("1.33");
        List<ObjectFeed.State> states = new CopyOnWriteArrayList<>();
        ResourceSlices feed = feed(old, "rs-node-1", states);
        feed.watch(() -> { });
        DeviceSlices.View view = feed.await(Duration.ofSeconds(20));
        assertEquals(ObjectFeed.State.ABSENT, feed.state());
        assertTrue(view.known());
        assertEquals(List.of(), view.devices());
        assertFalse(states.contains(ObjectFeed.State.FAILING), states.toString());
    }
}
