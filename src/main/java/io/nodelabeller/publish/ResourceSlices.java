package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodelabeller.feature.DeviceSlices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * The ResourceSlices ({@code resource.k8s.io/v1}, Kubernetes 1.34 and later) that one DRA driver publishes for this
 * node, read through an {@link ObjectFeed} scoped by field selectors to {@code spec.nodeName=<node>} and
 * {@code spec.driver=<driver>}: the API server sends this agent its own node's slices only, and a change of one
 * node's slices reaches that node's agent alone (no spread needed). Slices published for all nodes or by node
 * selector are not read: they describe no device of this node in particular.
 *
 * <p>A pool may span several slices: its devices count only when every slice of its highest
 * {@code spec.pool.generation} is there ({@code resourceSliceCount}); a pool caught between generations makes the
 * view unknown, so that nothing is removed on the way. Where {@code resource.k8s.io/v1} is not served (404: Kubernetes
 * 1.33 or older, which serve only {@code v1beta1}/{@code v1beta2}, or DRA switched off) there are no slices, checked
 * again after {@code recheck}.
 */
public final class ResourceSlices extends ObjectFeed implements DeviceSlices {

    /** The NVIDIA DRA driver for GPUs (k8s-dra-driver-gpu): its driver name in {@code spec.driver}. */
    public static final String NVIDIA_GPU_DRIVER = "gpu.nvidia.com";

    static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("resource.k8s.io").withVersion("v1").withPlural("resourceslices")
            .withKind("ResourceSlice").withNamespaced(false).build();

    private static final Logger LOG = LoggerFactory.getLogger(ResourceSlices.class);

    private final String driver;
    /** Each slice's spec, by slice name. */
    private final Map<String, Map<String, Object>> slices = new ConcurrentSkipListMap<>();

    /**
     * @param stateListener told every state change (metrics)
     * @param recheck       how long after a 404 or 403 the slices are read again
     */
    public ResourceSlices(KubernetesClient client, String nodeName, String driver, Consumer<State> stateListener,
                          Duration recheck) {
        super(LOG, client, new Kind(CONTEXT, Map.of("spec.nodeName", nodeName, "spec.driver", driver),
                        "ResourceSlices of " + driver, "the service account needs get, list and watch on resourceslices.resource.k8s.io",
                        "resourceslices", false),
                stateListener, recheck, Duration.ZERO, new java.util.Random());
        this.driver = driver;
    }

    @Override
    public View current() {
        if (!known()) {
            return View.UNKNOWN;
        }
        return view(slices);
    }

    @Override
    public View await(Duration timeout) throws InterruptedException {
        awaitKnown(timeout);
        return current();
    }

    /** The devices of {@code specs} (slice name → spec), pool by pool; unknown while a pool is incomplete. */
    static View view(Map<String, Map<String, Object>> specs) {
        Map<String, List<Map.Entry<String, Map<String, Object>>>> pools = new java.util.TreeMap<>();
        specs.entrySet().forEach(e -> pools.computeIfAbsent(String.valueOf(map(e.getValue().get("pool")).get("name")),
                k -> new ArrayList<>()).add(e));
        List<Device> devices = new ArrayList<>();
        for (Map.Entry<String, List<Map.Entry<String, Map<String, Object>>>> pool : pools.entrySet()) {
            long generation = pool.getValue().stream().mapToLong(e -> number(map(e.getValue().get("pool")).get("generation")))
                    .max().orElse(0);
            List<Map.Entry<String, Map<String, Object>>> current = pool.getValue().stream()
                    .filter(e -> number(map(e.getValue().get("pool")).get("generation")) == generation).toList();
            long expected = number(map(current.get(0).getValue().get("pool")).get("resourceSliceCount"));
            if (current.size() < Math.max(1, expected)) {
                return new View(List.of(), false, "pool " + pool.getKey() + " generation " + generation + ": " + current.size()
                        + " of " + expected + " slices so far");
            }
            current.forEach(e -> devices.addAll(devices(e.getKey(), e.getValue())));
        }
        return new View(devices, true, specs.size() + " ResourceSlice(s)");
    }

    /** The devices of one slice's spec, attributes and capacities as plain text. */
    static List<Device> devices(String slice, Map<String, Object> spec) {
        List<Device> out = new ArrayList<>();
        Object list = spec.get("devices");
        if (!(list instanceof List<?> devices)) {
            return out;
        }
        for (Object o : devices) {
            Map<String, Object> d = map(o);
            if (d.get("name") == null) {
                continue;
            }
            Map<String, String> attributes = new LinkedHashMap<>();
            map(d.get("attributes")).forEach((k, v) -> {
                Map<String, Object> a = map(v);
                for (String type : List.of("string", "int", "bool", "version")) {
                    if (a.get(type) != null) {
                        attributes.put(k, String.valueOf(a.get(type)));
                        break;
                    }
                }
            });
            Map<String, String> capacity = new LinkedHashMap<>();
            map(d.get("capacity")).forEach((k, v) -> {
                Object value = map(v).get("value");
                if (value != null) {
                    try {
                        capacity.put(k, Quantity.getAmountInBytes(new Quantity(String.valueOf(value))).toBigInteger().toString());
                    } catch (IllegalArgumentException | ArithmeticException e) {
                        LOG.debug("ResourceSlice {}: device {}: capacity {} '{}' is not a quantity", slice, d.get("name"), k, value);
                    }
                }
            });
            out.add(new Device(slice, String.valueOf(d.get("name")), attributes, capacity));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static long number(Object o) {
        if (o instanceof Number n) {
            return n.longValue();
        }
        try {
            return o == null ? 0 : Long.parseLong(o.toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    String syncedLine() {
        return "ResourceSlices of " + driver + " for this node: " + slices.size() + " read, watching for changes";
    }

    @Override
    String absentLine(Duration recheck) {
        return "ResourceSlices: resource.k8s.io/v1 is not served (Kubernetes 1.34 or later serves it, with DRA on): no"
                + " slice features, checking again every " + recheck;
    }

    @Override
    boolean put(GenericKubernetesResource obj) {
        Map<String, Object> spec = map(obj.getAdditionalProperties().get("spec"));
        Map<String, Object> before = slices.put(obj.getMetadata().getName(), spec);
        if (!spec.equals(before)) {
            LOG.info("ResourceSlice {} {}: {} device(s)", obj.getMetadata().getName(), before == null ? "read" : "changed",
                    devices(obj.getMetadata().getName(), spec).size());
            return true;
        }
        return false;
    }

    @Override
    boolean remove(GenericKubernetesResource obj) {
        if (slices.remove(obj.getMetadata().getName()) == null) {
            return false;
        }
        LOG.info("ResourceSlice {} deleted", obj.getMetadata().getName());
        return true;
    }

    @Override
    void clear() {
        slices.clear();
    }
}
