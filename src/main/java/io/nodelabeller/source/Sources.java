package io.nodelabeller.source;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.source.cpu.CpuSource;
import io.nodelabeller.source.kernel.KernelSource;
import io.nodelabeller.source.local.LocalSource;
import io.nodelabeller.source.memory.MemorySource;
import io.nodelabeller.source.network.NetworkSource;
import io.nodelabeller.source.nvidia.NvidiaSource;
import io.nodelabeller.source.os.OsSource;
import io.nodelabeller.source.pci.PciSource;
import io.nodelabeller.source.storage.StorageSource;
import io.nodelabeller.source.usb.UsbSource;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Where sources are listed. A new source is one sub-package plus one line in {@link #CATALOG}.
 * Order is the order of discovery and of {@code --help}.
 */
public final class Sources {

    private static final Map<String, BiFunction<Config, Options, Source>> CATALOG = new LinkedHashMap<>();

    static {
        CATALOG.put("cpu", (c, o) -> new CpuSource());
        CATALOG.put("kernel", (c, o) -> new KernelSource(c.sources().kernel()));
        CATALOG.put("system", (c, o) -> new OsSource(o.nodeName()));
        CATALOG.put("pci", (c, o) -> new PciSource());
        CATALOG.put("usb", (c, o) -> new UsbSource());
        CATALOG.put("memory", (c, o) -> new MemorySource());
        CATALOG.put("storage", (c, o) -> new StorageSource());
        CATALOG.put("network", (c, o) -> new NetworkSource());
        CATALOG.put("local", (c, o) -> new LocalSource(Clock.systemUTC(),
                c.publish().featuresFile().isEmpty() ? null : java.nio.file.Path.of(c.publish().featuresFile())));
        CATALOG.put("nvidia", (c, o) -> new NvidiaSource(o));
    }

    private Sources() {
    }

    /** Every known source name, in discovery order. */
    public static List<String> names() {
        return List.copyOf(CATALOG.keySet());
    }

    /**
     * The sources selected by {@code selection} (NFD syntax: "all", names, "-name" to remove one); throws
     * {@link IllegalArgumentException} naming an unknown source.
     */
    public static List<Source> create(Config config, Options options, List<String> selection) {
        List<Source> out = new ArrayList<>();
        for (String name : select(selection)) {
            out.add(CATALOG.get(name).apply(config, options));
        }
        return out;
    }

    /** Resolves a selection to source names in catalog order. */
    public static List<String> select(List<String> selection) {
        return io.nodelabeller.config.Selection.resolve(selection, names(), "source");
    }
}
