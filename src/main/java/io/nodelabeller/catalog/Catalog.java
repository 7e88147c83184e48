package io.nodelabeller.catalog;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.CoreConfig;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.SourceSection;
import io.nodelabeller.config.Options;
import io.nodelabeller.config.Role;
import io.nodelabeller.config.Selection;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.rules.NodeFeatureRuleLabeler;
import io.nodelabeller.label.rules.RuleObjects;
import io.nodelabeller.config.PublishConfig;
import io.nodelabeller.label.rules.CustomLabeler;
import io.nodelabeller.source.Source;
import io.nodelabeller.feature.DeviceSlices;
import io.nodelabeller.source.dra.DraLabeler;
import io.nodelabeller.source.dra.DraSource;
import io.nodelabeller.source.usb.UsbConfig;
import io.nodelabeller.source.pci.PciConfig;
import io.nodelabeller.source.kernel.KernelConfig;
import io.nodelabeller.source.cpu.CpuConfig;
import io.nodelabeller.source.cpu.CpuLabeler;
import io.nodelabeller.source.cpu.CpuSource;
import io.nodelabeller.source.kernel.KernelLabeler;
import io.nodelabeller.source.kernel.KernelSource;
import io.nodelabeller.source.local.LocalLabeler;
import io.nodelabeller.source.local.LocalSource;
import io.nodelabeller.source.memory.MemoryLabeler;
import io.nodelabeller.source.memory.MemorySource;
import io.nodelabeller.source.network.NetworkLabeler;
import io.nodelabeller.source.network.NetworkSource;
import io.nodelabeller.source.nvidia.NvidiaConfig;
import io.nodelabeller.source.nvidia.NvidiaLabeler;
import io.nodelabeller.source.nvidia.NvidiaSource;
import io.nodelabeller.source.pci.PciLabeler;
import io.nodelabeller.source.pci.PciSource;
import io.nodelabeller.source.storage.StorageLabeler;
import io.nodelabeller.source.storage.StorageSource;
import io.nodelabeller.source.system.SystemLabeler;
import io.nodelabeller.source.system.SystemSource;
import io.nodelabeller.source.usb.UsbLabeler;
import io.nodelabeller.source.usb.UsbSource;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.EnumSet;
import java.util.function.BiFunction;

/**
 * Where sources and labelers are listed: one line each. A source is one folder under {@code source/} (its
 * discovery, its labeler, its docs) plus its line here; {@code custom} is a labeler without a source of its own
 * (rules read every source's features).
 *
 * <p>The order is the labelers' merge order — built-in labelers first, then rules, then local feature files, so
 * that an operator's rule or feature file can override a built-in label (NFD's priorities) — and the order in
 * which sources are discovered.
 */
public final class Catalog {

    /**
     * One line of the catalog: a name, its {@code sources:} section (null when it has none), how to make its
     * discovery (none for {@code custom}) and its labeler.
     */
    private record Entry(String name, SourceSection<?> settings, SourceMaker source,
                         BiFunction<Config, Options, Labeler> labeler) {
    }

    /** How a source is made: from the config, the options and the node's ResourceSlices (read by the publish stage). */
    @FunctionalInterface
    private interface SourceMaker {
        Source make(Config config, Options options, DeviceSlices slices);
    }

    private static final List<Entry> ENTRIES = List.of(
            new Entry(CpuSource.NAME, CpuConfig.SECTION,
                    (c, o, s) -> new CpuSource(), (c, o) -> new CpuLabeler(c.sources().get(CpuConfig.SECTION))),
            new Entry(KernelSource.NAME, KernelConfig.SECTION,
                    (c, o, s) -> new KernelSource(c.sources().get(KernelConfig.SECTION)),
                    (c, o) -> new KernelLabeler(c.sources().get(KernelConfig.SECTION))),
            new Entry(SystemSource.NAME, null, (c, o, s) -> new SystemSource(o.nodeName()), (c, o) -> new SystemLabeler()),
            new Entry(PciSource.NAME, PciConfig.SECTION,
                    (c, o, s) -> new PciSource(), (c, o) -> new PciLabeler(c.sources().get(PciConfig.SECTION))),
            new Entry(UsbSource.NAME, UsbConfig.SECTION,
                    (c, o, s) -> new UsbSource(), (c, o) -> new UsbLabeler(c.sources().get(UsbConfig.SECTION))),
            new Entry(MemorySource.NAME, null, (c, o, s) -> new MemorySource(), (c, o) -> new MemoryLabeler()),
            new Entry(StorageSource.NAME, null, (c, o, s) -> new StorageSource(), (c, o) -> new StorageLabeler()),
            new Entry(NetworkSource.NAME, null, (c, o, s) -> new NetworkSource(), (c, o) -> new NetworkLabeler()),
            new Entry(DraSource.NAME, null, (c, o, s) -> new DraSource(s), (c, o) -> new DraLabeler()),
            new Entry(NvidiaSource.NAME, NvidiaConfig.SECTION, (c, o, s) -> new NvidiaSource(o, c.sources().get(NvidiaConfig.SECTION)),
                    (c, o) -> new NvidiaLabeler(c.devicePlugin(), NvidiaLabeler.PROCESS_START, o.noTimestamp(), o.role())),
            new Entry(CustomLabeler.NAME, null, null, (c, o) -> new CustomLabeler(c.sources().custom())),
            new Entry(LocalSource.NAME, LocalSource.SECTION,
                    (c, o, s) -> new LocalSource(Clock.systemUTC(), ownFeaturesFile(c)), (c, o) -> new LocalLabeler()));

    private Catalog() {
    }

    /** The {@code sources:} sections of every source that has one, for reading config files. */
    public static List<SourceSection<?>> sections() {
        return ENTRIES.stream().<SourceSection<?>>map(Entry::settings).filter(java.util.Objects::nonNull).toList();
    }

    /** A config loader that knows every source's section and name (lenient as NFD; {@code .strict()} for check-config). */
    public static ConfigLoader configLoader() {
        return new ConfigLoader(sections(), sourceNames(), labelerNames());
    }

    /** Every source name, in discovery order ({@code --sources}, {@code core.featureSources}). */
    public static List<String> sourceNames() {
        return ENTRIES.stream().filter(e -> e.source() != null).map(Entry::name).toList();
    }

    /** Every labeler name, in merge order ({@code core.labelSources}). */
    public static List<String> labelerNames() {
        return ENTRIES.stream().map(Entry::name).toList();
    }

    /** Resolves a source selection (NFD syntax: "all", names, "-name"); throws IllegalArgumentException naming an unknown one. */
    public static List<String> selectSources(List<String> selection) {
        return Selection.resolve(selection, sourceNames(), "source");
    }

    /** Resolves a labeler selection, as {@link #selectSources}. */
    public static List<String> selectLabelers(List<String> selection) {
        return Selection.resolve(selection, labelerNames(), "label source");
    }

    /**
     * The sources an agent of {@code role} runs for {@code selection}: the selection ({@link Role#ALL}), the selection
     * without nvidia ({@link Role#HOST}: NVML is the GPU agent's), or pci and nvidia whatever it says ({@link Role#GPU}:
     * what GPU Feature Discovery's labels are made of).
     */
    public static List<String> selectSources(List<String> selection, Role role) {
        return switch (role) {
            case ALL -> selectSources(selection);
            case HOST -> selectSources(selection).stream().filter(s -> !s.equals(NvidiaSource.NAME)).toList();
            case GPU -> List.of(PciSource.NAME, NvidiaSource.NAME);
        };
    }

    /** The labelers an agent of {@code role} runs for {@code selection}: the GPU agent's is nvidia's alone. */
    public static List<String> selectLabelers(List<String> selection, Role role) {
        return role == Role.GPU ? List.of(NvidiaSource.NAME) : selectLabelers(selection);
    }

    /** The sources chosen by {@code selection} for the agent's role, by name, in discovery order; no ResourceSlices. */
    public static Map<String, Source> sources(Config config, Options options, List<String> selection) {
        return sources(config, options, selection, DeviceSlices.NONE);
    }

    /** As {@link #sources(Config, Options, List)}, the {@code dra} source reading {@code slices}. */
    public static Map<String, Source> sources(Config config, Options options, List<String> selection, DeviceSlices slices) {
        List<String> chosen = selectSources(selection, options.role());
        Map<String, Source> out = new LinkedHashMap<>();
        for (Entry e : ENTRIES) {
            if (e.source() != null && chosen.contains(e.name())) {
                out.put(e.name(), e.source().make(config, options, slices));
            }
        }
        return out;
    }

    /** The labelers chosen by {@code selection} for the agent's role, by name, in merge order. */
    public static Map<String, Labeler> labelers(Config config, Options options, List<String> selection) {
        List<String> chosen = selectLabelers(selection, options.role());
        Map<String, Labeler> out = new LinkedHashMap<>();
        for (Entry e : ENTRIES) {
            if (chosen.contains(e.name())) {
                out.put(e.name(), e.labeler().apply(config, options));
            }
        }
        return out;
    }

    /** The full labelling stage for {@code config}: its labelers, the validity rules and the whitelist. */
    public static Labelling labelling(Config config, Options options) {
        return labelling(config, options, null);
    }

    /**
     * As {@link #labelling(Config, Options)}, with the rules of NodeFeatureRule objects run last when {@code objects}
     * is given (run and once, publishing to the node, with {@code publish.nodeFeatureRules}).
     */
    public static Labelling labelling(Config config, Options options, RuleObjects objects) {
        Map<String, Labeler> labelers = labelers(config, options, config.core().labelSources());
        boolean gpuAgent = options.role() == Role.GPU; // GPU Feature Discovery's labels only: no rules, no rule outputs
        if (objects != null && !gpuAgent) {
            labelers.put(NodeFeatureRuleLabeler.NAME, new NodeFeatureRuleLabeler(objects));
        }
        return new Labelling(labelers, labelValidity(config.core()), config.core().labelWhiteList(),
                gpuAgent ? EnumSet.of(LabelSet.Kind.LABEL) : kinds(config.publish()));
    }

    /** The validity rules of {@code core}'s namespaces. */
    public static LabelValidity labelValidity(CoreConfig core) {
        return new LabelValidity(core.extraLabelNs(), core.denyLabelNs());
    }

    /**
     * The nvidia.com labels node-labeller writes: the nvidia labeler's docs. With the keys an install's write scope
     * lists, the only ones it writes under nvidia.com (the admission policy allows the same).
     */
    public static List<LabelDoc> gpuLabels() {
        return new NvidiaLabeler(Config.DEFAULT.devicePlugin(), NvidiaLabeler.PROCESS_START, true, Role.ALL).docs().stream()
                .filter(d -> d.key().startsWith(LabelValidity.NVIDIA_DOMAIN + "/")).toList();
    }

    /** Whether a key is one of node-labeller's GPU labels ({@link #gpuLabels}); each doc's pattern compiled once. */
    public static java.util.function.Predicate<String> gpuLabel() {
        return matching(gpuLabels());
    }

    /** Whether a key is one of {@code docs}' (placeholders matching any part), each doc's pattern compiled once. */
    private static java.util.function.Predicate<String> matching(List<LabelDoc> docs) {
        List<java.util.regex.Pattern> patterns = docs.stream().map(LabelDoc::pattern).toList();
        return key -> patterns.stream().anyMatch(p -> p.matcher(key).matches());
    }

    /** The GPU labels a ResourceSlice gives: the dra labeler's docs (all under nvidia.com). */
    public static List<LabelDoc> sliceLabels() {
        return new DraLabeler().docs();
    }

    /** Whether a key is one of the GPU labels a ResourceSlice gives ({@link #sliceLabels}). */
    public static java.util.function.Predicate<String> sliceLabel() {
        return matching(sliceLabels());
    }

    /** The kinds of output the node gets: labels, and the rule outputs {@code publish:} switches on. */
    public static Set<LabelSet.Kind> kinds(PublishConfig publish) {
        Set<LabelSet.Kind> out = EnumSet.of(LabelSet.Kind.LABEL);
        if (publish.annotations()) {
            out.add(LabelSet.Kind.ANNOTATION);
        }
        if (publish.taints()) {
            out.add(LabelSet.Kind.TAINT);
        }
        if (publish.extendedResources()) {
            out.add(LabelSet.Kind.EXTENDED_RESOURCE);
        }
        return out;
    }

    /** What every labeler documents about its labels ({@link Labeler#docs()}), by labeler name, in merge order. */
    public static Map<String, List<LabelDoc>> docs() {
        Map<String, List<LabelDoc>> out = new LinkedHashMap<>();
        labelers(Config.DEFAULT, Options.defaults(), List.of("all")).forEach((name, labeler) -> out.put(name, labeler.docs()));
        return out;
    }

    /** The features.d file node-labeller writes itself ({@code publish.featuresFile}), which the local source skips. */
    private static Path ownFeaturesFile(Config c) {
        return c.publish().featuresFile().isEmpty() ? null : Path.of(c.publish().featuresFile());
    }
}
