package io.nodelabeller.source.nvidia;

import io.nodelabeller.config.DevicePluginConfig;
import io.nodelabeller.config.Role;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.log.ProblemLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code nvidia.com/*} labels (GFD-compatible): small {@link GpuLabeler}s merged in GFD's order with
 * {@link Labeler#merge}, as the labelling stage merges every labeler. Reads the
 * {@code nvidia.*} features of the nvidia source and the {@code pci.device} instances.
 *
 * <ul>
 *   <li>{@code gpu.present}: from PCI alone, with or without NVML.</li>
 *   <li>{@code gfd.timestamp}: on nodes with an NVIDIA GPU (PCI or NVML) only, so GPU-less nodes carry no
 *       {@code nvidia.com} label at all; left out with {@code --no-timestamp} or {@code flags.gfd.noTimestamp}.</li>
 *   <li>{@code vgpu.*}: from the PCI configuration space alone (where {@code sources.nvidia.vgpu} looks), as GFD.</li>
 *   <li>everything else (including {@code gpu.machine} and {@code gpu.mode}): only when NVML answered and found a
 *       usable GPU, as GFD, which emits none of them without devices.</li>
 * </ul>
 *
 * Problems (NVML missing, several models, an invalid MIG layout...) are logged once when they appear, not every
 * cycle, so keep one instance for the life of the process.
 */
public final class NvidiaLabeler implements Labeler {

    private static final Logger LOG = LoggerFactory.getLogger(NvidiaLabeler.class);

    /** When this process started: the value of {@code gfd.timestamp}. */
    public static final Instant PROCESS_START =
            ProcessHandle.current().info().startInstant().orElseGet(Instant::now);

    static final String OMITTED = "; nvidia.com GPU labels other than gpu.present are omitted";

    private final boolean timestamp;
    private final GpuLabeler present = new PresenceLabeler();
    private final GpuLabeler stamp;
    private final List<GpuLabeler> nvml;
    /** vGPU labels, with or without NVML (GFD merges them after the device labels). */
    private final GpuLabeler vgpu = new VgpuLabeler();
    /** The GPU labelers' notes (several models, an invalid MIG layout...). */
    private final ProblemLog problems = new ProblemLog(LOG, null);
    /** Why the NVML-derived labels are left out, while they are. */
    private final ProblemLog nvmlState = new ProblemLog(LOG, null);

    private final Role role;

    public NvidiaLabeler(DevicePluginConfig dp, Instant start, boolean noTimestamp) {
        this(dp, start, noTimestamp, Role.ALL);
    }

    /**
     * {@code role}: {@link Role#HOST} writes {@code gpu.present} alone (NVML is the GPU agent's), {@link Role#GPU}
     * everything else, {@link Role#ALL} both.
     */
    public NvidiaLabeler(DevicePluginConfig dp, Instant start, boolean noTimestamp, Role role) {
        this.role = role;
        this.timestamp = !noTimestamp && !dp.gfd().noTimestamp();
        this.stamp = new TimestampLabeler(start);
        this.nvml = List.of(new MachineLabeler(), new VersionLabeler(), new MigCapabilityLabeler(),
                new SharingLabeler(dp), new ResourceLabeler(dp), new ModelLabeler(dp), new ModeLabeler(), new CliqueLabeler());
    }

    /** The parts' docs in the order they label: gpu.present, gfd.timestamp, then the NVML-derived ones. */
    @Override
    public List<LabelDoc> docs() {
        List<LabelDoc> out = new ArrayList<>(present.docs());
        out.addAll(stamp.docs());
        nvml.forEach(p -> out.addAll(p.docs()));
        out.addAll(vgpu.docs());
        return out;
    }

    /** The GPU labelers that apply to this snapshot, merged in GFD's order ({@link Labeler#merge}). */
    @Override
    public synchronized List<Label> labels(Features features) {
        if (role == Role.HOST) { // no NVML here, by design: nothing to report about it
            return Labeler.merge(List.of(present), features);
        }
        GpuFacts facts = GpuFacts.of(features);
        List<GpuLabeler> active = new ArrayList<>();
        if (role == Role.ALL) {
            active.add(present);
        }
        if (timestamp && (facts.pciGpuPresent() || facts.nvmlUsable())) {
            active.add(stamp);
        }
        List<String> notes = new ArrayList<>();
        if (facts.nvmlUsable()) {
            facts.failedGpus().forEach((i, e) -> notes.add("GPU " + i + ": " + e + "; its labels are left out"));
            active.addAll(nvml);
        }
        active.add(vgpu);
        List<Label> labels = Labeler.merge(active, features);
        active.forEach(l -> notes.addAll(l.notes()));
        report(facts, notes);
        return labels;
    }

    /** Logs what is new since the last cycle: one line per state change, never the same line every cycle. */
    private void report(GpuFacts facts, List<String> notes) {
        problems.report(notes);
        // the GPU agent writes no gpu.present (the host agent does): what it leaves out is all it writes
        String unusable = whyUnusable(facts, role == Role.GPU ? "; GPU Feature Discovery's labels are omitted" : OMITTED);
        if (unusable == null) {
            nvmlState.ok("NVML available: " + facts.gpus().size() + " GPU(s)");
            return;
        }
        // Only informative on nodes without any NVIDIA GPU: NVML is expected to be missing there, but the operator
        // running print on such a machine should still learn in one line why no GPU labels appear.
        boolean expected = !facts.pciGpuPresent() && facts.failedGpus().isEmpty();
        nvmlState.report(List.of(unusable), expected ? Level.INFO : Level.WARN);
    }

    /** Why no NVML-derived label is produced this cycle, ending with {@code omitted}; null when they are. */
    static String whyUnusable(GpuFacts facts, String omitted) {
        if (facts.nvmlUsable()) {
            return null;
        }
        if (facts.nvmlStatus() == null) {
            return "the nvidia source did not run or failed (see core.featureSources / --sources)" + omitted;
        }
        if (!"ok".equals(facts.nvmlStatus())) {
            return "NVML unavailable: " + (facts.nvmlError() == null ? facts.nvmlStatus() : facts.nvmlError()) + omitted;
        }
        if (!facts.failedGpus().isEmpty()) {
            List<String> errors = new ArrayList<>();
            facts.failedGpus().forEach((i, e) -> errors.add("GPU " + i + ": " + e));
            return "NVML could not query any GPU (" + String.join(", ", errors) + ")" + omitted;
        }
        return "NVML found no GPU" + omitted;
    }
}
