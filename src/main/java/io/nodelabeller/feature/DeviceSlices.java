package io.nodelabeller.feature;

import java.util.List;
import java.util.Map;

/**
 * The devices a DRA driver publishes for this node in its ResourceSlices ({@code resource.k8s.io/v1}), as the agent
 * last read them. The publish stage reads them from the API server (a watch of the node's own slices); the {@code dra}
 * source only asks for the current view, so no source talks to Kubernetes.
 */
@FunctionalInterface
public interface DeviceSlices {

    /**
     * One device of a slice: the slice's name, the device's, its attributes (name → value as text: a string as is,
     * an integer in decimal, a bool {@code true}/{@code false}, a version as written) and its capacities (name →
     * amount, a decimal integer: a memory in bytes).
     */
    record Device(String slice, String name, Map<String, String> attributes, Map<String, String> capacity) {
        public Device {
            attributes = Map.copyOf(attributes);
            capacity = Map.copyOf(capacity);
        }

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    /**
     * The devices of the node's complete pools, in slice and device order. {@code known} false: not read yet, or
     * unreadable and never read, or a pool caught between generations; whatever the slices produced is then kept as
     * it is on the node. {@code why} says, for a log line, what the view stands for ("read", "no cluster", ...).
     */
    record View(List<Device> devices, boolean known, String why) {
        public View {
            devices = List.copyOf(devices);
        }

        /** Not read (yet): nothing may be concluded from it. */
        public static final View UNKNOWN = new View(List.of(), false, "not read yet");

        /** No cluster to read slices from ({@code print}, no node publishing): no devices, for sure. */
        public static final View NONE = new View(List.of(), true, "no cluster to read ResourceSlices from");
    }

    View current();

    /** The view once it is known, waiting at most {@code timeout} for a first read still under way. */
    default View await(java.time.Duration timeout) throws InterruptedException {
        return current();
    }

    /** No slices: what every command without a cluster sees. */
    DeviceSlices NONE = () -> View.NONE;

    /**
     * A view decided after discovery is built (the API client starts beside it): {@link View#UNKNOWN} until
     * {@link #set} names the real one.
     */
    final class Deferred implements DeviceSlices {

        private volatile DeviceSlices target;

        public synchronized void set(DeviceSlices to) {
            target = to;
            notifyAll();
        }

        @Override
        public View await(java.time.Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            DeviceSlices t;
            synchronized (this) {
                long left;
                while (target == null && (left = end - System.nanoTime()) > 0) {
                    java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
                }
                t = target;
            }
            return t == null ? View.UNKNOWN : t.await(java.time.Duration.ofNanos(Math.max(0, end - System.nanoTime())));
        }

        @Override
        public View current() {
            DeviceSlices t = target;
            return t == null ? View.UNKNOWN : t.current();
        }
    }
}
