package io.nodelabeller.label;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.label.gpu.NvidiaLabeler;
import io.nodelabeller.label.nfd.CpuLabeler;
import io.nodelabeller.label.nfd.KernelLabeler;
import io.nodelabeller.label.nfd.LocalLabeler;
import io.nodelabeller.label.nfd.MemoryLabeler;
import io.nodelabeller.label.nfd.NetworkLabeler;
import io.nodelabeller.label.nfd.PciLabeler;
import io.nodelabeller.label.nfd.StorageLabeler;
import io.nodelabeller.label.nfd.SystemLabeler;
import io.nodelabeller.label.nfd.UsbLabeler;
import io.nodelabeller.label.rules.CustomLabeler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Where labelers are listed, in merge order: built-in labelers first, then rules, then local files, so that
 * an operator's rule or feature file can override a built-in label (NFD's priorities).
 */
public final class Labelers {

    private static final Map<String, BiFunction<Config, Options, Labeler>> CATALOG = new LinkedHashMap<>();

    static {
        CATALOG.put("cpu", (c, o) -> new CpuLabeler(c.sources().cpu()));
        CATALOG.put("kernel", (c, o) -> new KernelLabeler(c.sources().kernel()));
        CATALOG.put("system", (c, o) -> new SystemLabeler());
        CATALOG.put("pci", (c, o) -> new PciLabeler(c.sources().pci()));
        CATALOG.put("usb", (c, o) -> new UsbLabeler(c.sources().usb()));
        CATALOG.put("memory", (c, o) -> new MemoryLabeler());
        CATALOG.put("storage", (c, o) -> new StorageLabeler());
        CATALOG.put("network", (c, o) -> new NetworkLabeler());
        CATALOG.put("nvidia", (c, o) -> new NvidiaLabeler(c.devicePlugin(), NvidiaLabeler.PROCESS_START, o.noTimestamp()));
        CATALOG.put("custom", (c, o) -> new CustomLabeler(c.sources().custom()));
        CATALOG.put("local", (c, o) -> new LocalLabeler());
    }

    private Labelers() {
    }

    public static List<String> names() {
        return List.copyOf(CATALOG.keySet());
    }

    /** The labelers chosen by {@code selection} ("all", names, "-name"). */
    public static List<Labeler> create(Config config, Options options, List<String> selection) {
        List<Labeler> out = new ArrayList<>();
        for (String name : io.nodelabeller.config.Selection.resolve(selection, names(), "label source")) {
            out.add(CATALOG.get(name).apply(config, options));
        }
        return out;
    }

    /** What every labeler documents about its labels ({@link Labeler#docs()}), by labeler name, in catalog order. */
    public static Map<String, List<LabelDoc>> docs() {
        Map<String, List<LabelDoc>> out = new LinkedHashMap<>();
        for (Labeler labeler : create(Config.DEFAULT, Options.defaults(), List.of("all"))) {
            out.put(labeler.name(), labeler.docs());
        }
        return out;
    }

    /** The full labelling stage for {@code config}. */
    public static Labelling labelling(Config config, Options options) {
        return new Labelling(create(config, options, config.core().labelSources()),
                new LabelRules(config.core().extraLabelNs(), config.core().denyLabelNs()),
                config.core().labelWhiteList());
    }
}
