package io.nodelabeller.label;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.label.nfd.KernelLabeler;

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
        CATALOG.put("kernel", (c, o) -> new KernelLabeler());
        CATALOG.put("custom", (c, o) -> new io.nodelabeller.label.rules.CustomLabeler(c.sources().custom()));
        CATALOG.put("local", (c, o) -> new io.nodelabeller.label.nfd.LocalLabeler());
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

    /** The full labelling stage for {@code config}. */
    public static Labelling labelling(Config config, Options options) {
        return new Labelling(create(config, options, config.core().labelSources()),
                new LabelRules(config.core().extraLabelNs(), config.core().denyLabelNs()),
                config.core().labelWhiteList());
    }
}
