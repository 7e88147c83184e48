package io.nodelabeller.source.dra;

import io.nodelabeller.feature.DeviceSlices;
import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The devices the NVIDIA DRA driver for GPUs publishes for this node in its ResourceSlices, as features: one
 * {@code dra.gpu} instance per full GPU (device {@code type} {@code gpu}) and one {@code dra.mig} instance per MIG
 * device ({@code type} {@code mig}), each with the device's attributes by name (a qualified name by its part after
 * the domain: {@code resource.kubernetes.io/pciBusID} is {@code pciBusID}), its capacities by name as integers (memory
 * in bytes; the per-slice {@code memorySlice<i>} capacities left out), the device's name ({@code device}) and its
 * slice's ({@code slice}). The slices are read by the publish stage (a watch of the node's own slices) and handed in:
 * this source reads no file and talks to no API server. Slices not known yet (not read, unreadable and never read, a
 * pool between generations): the source fails, so that what it produced is kept.
 */
public final class DraSource implements Source {

    public static final String NAME = "dra";
    public static final String GPU = "gpu";
    public static final String MIG = "mig";

    /** How long a discovery waits for the slices' first read, which starts beside the first cycle. */
    static final Duration FIRST_READ = Duration.ofSeconds(2);

    private static final Pattern MEMORY_SLICE = Pattern.compile("memorySlice\\d+");

    private final DeviceSlices slices;

    public DraSource(DeviceSlices slices) {
        this.slices = slices;
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws Exception {
        DeviceSlices.View view = slices.await(FIRST_READ);
        if (!view.known()) {
            throw new IllegalStateException("the node's ResourceSlices are not known: " + view.why());
        }
        Features.Builder b = Features.builder(NAME).instances(GPU).instances(MIG);
        for (DeviceSlices.Device d : view.devices()) {
            Map<String, String> a = new LinkedHashMap<>();
            a.put("device", d.name());
            a.put("slice", d.slice());
            d.attributes().forEach((k, v) -> a.putIfAbsent(k.substring(k.lastIndexOf('/') + 1), v));
            d.capacity().forEach((k, v) -> {
                if (!MEMORY_SLICE.matcher(k).matches()) {
                    a.putIfAbsent(k, v);
                }
            });
            String type = a.get("type");
            if (GPU.equals(type) || MIG.equals(type)) {
                b.instance(type, a, "ResourceSlice " + d.slice() + ", device " + d.name());
            }
        }
        return b.build();
    }
}
