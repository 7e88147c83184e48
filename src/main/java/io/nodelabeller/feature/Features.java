package io.nodelabeller.feature;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one or more sources found, in NFD's model: <em>flags</em> (a set of names), <em>attributes</em>
 * (name → value) and <em>instances</em> (a list of attribute maps), each keyed {@code <source>.<feature>}
 * such as {@code pci.device} or {@code kernel.version}. Immutable; build one with {@link #builder(String)}.
 *
 * <p>Each feature may carry an <em>origin</em>: where it was read (a host file, an NVML call), so that
 * {@code explain} can show the facts behind a label; each instance may carry its own (its device's directory).
 */
public final class Features {

    private static final Features EMPTY = new Features(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), Map.of(),
            Map.of());

    private final SortedMap<String, SortedSet<String>> flags;
    private final SortedMap<String, SortedMap<String, String>> attributes;
    private final SortedMap<String, List<Instance>> instances;
    /** Looked up by key alone: a hash map. */
    private final Map<String, String> origins;
    /**
     * Each instance list's origins, index by index (null where an instance has none). A list per key, not an origin
     * per "pci.device[1234]" key: a big host has 2,000 of them, and every merge would copy them all again.
     */
    private final Map<String, List<String>> instanceOrigins;

    private Features(SortedMap<String, SortedSet<String>> flags,
                     SortedMap<String, SortedMap<String, String>> attributes,
                     SortedMap<String, List<Instance>> instances,
                     Map<String, String> origins, Map<String, List<String>> instanceOrigins) {
        this.flags = flags;
        this.attributes = attributes;
        this.instances = instances;
        this.origins = origins;
        this.instanceOrigins = instanceOrigins;
    }

    public static Features empty() {
        return EMPTY;
    }

    /** A builder whose feature names are prefixed with {@code source + "."}. */
    public static Builder builder(String source) {
        return new Builder(source);
    }

    /** The flag set {@code key} ({@code <source>.<feature>}), empty when absent. */
    public Set<String> flags(String key) {
        return flags.getOrDefault(key, Collections.emptySortedSet());
    }

    /** The attribute map {@code key}, empty when absent. */
    public Map<String, String> attributes(String key) {
        return attributes.getOrDefault(key, Collections.emptySortedMap());
    }

    /** One attribute value, or {@code null}. */
    public String attribute(String key, String name) {
        return attributes(key).get(name);
    }

    /** The instances {@code key}, empty when absent. */
    public List<Instance> instances(String key) {
        return instances.getOrDefault(key, List.of());
    }

    /** Where feature {@code key} was read from ("/host/proc/sys/kernel/osrelease", "nvmlDeviceGetName"), or null. */
    public String origin(String key) {
        return origins.get(key);
    }

    /** Where instance {@code i} of {@code key} was read from ("/host/sys/bus/pci/devices/0000:07:00.0"), or null. */
    public String instanceOrigin(String key, int i) {
        List<String> list = instanceOrigins.get(key);
        return list == null || i < 0 || i >= list.size() ? null : list.get(i);
    }

    public SortedMap<String, SortedSet<String>> allFlags() {
        return flags;
    }

    public SortedMap<String, SortedMap<String, String>> allAttributes() {
        return attributes;
    }

    public SortedMap<String, List<Instance>> allInstances() {
        return instances;
    }

    public boolean isEmpty() {
        return flags.isEmpty() && attributes.isEmpty() && instances.isEmpty();
    }

    /** The union of this and {@code other}; where both define a key, {@code other} wins. */
    public Features merge(Features other) {
        return union(List.of(this, other));
    }

    /**
     * The union of {@code parts} in one step (each part's maps copied once, not once per part after it); where
     * several define a key, the last wins.
     */
    public static Features union(List<Features> parts) {
        List<Features> some = parts.stream().filter(p -> !p.isEmpty() || !p.origins.isEmpty()).toList();
        if (some.isEmpty()) {
            return EMPTY;
        }
        if (some.size() == 1) {
            return some.get(0);
        }
        SortedMap<String, SortedSet<String>> f = new TreeMap<>();
        SortedMap<String, SortedMap<String, String>> a = new TreeMap<>();
        SortedMap<String, List<Instance>> i = new TreeMap<>();
        Map<String, String> o = new HashMap<>();
        Map<String, List<String>> io = new HashMap<>();
        for (Features p : some) {
            f.putAll(p.flags);
            a.putAll(p.attributes);
            i.putAll(p.instances);
            o.putAll(p.origins);
            p.instances.keySet().forEach(io::remove); // an instance list replaced loses its origins with it
            io.putAll(p.instanceOrigins);
        }
        return new Features(Collections.unmodifiableSortedMap(f), Collections.unmodifiableSortedMap(a),
                Collections.unmodifiableSortedMap(i), Collections.unmodifiableMap(o), Collections.unmodifiableMap(io));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Features other && flags.equals(other.flags) && attributes.equals(other.attributes)
                && instances.equals(other.instances);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flags, attributes, instances);
    }

    @Override
    public String toString() {
        return "Features{flags=" + flags + ", attributes=" + attributes + ", instances=" + instances + "}";
    }

    /** Collects the features of one source. Not thread-safe; {@link #build()} copies. */
    public static final class Builder {
        private final String prefix;
        private final Map<String, SortedSet<String>> flags = new LinkedHashMap<>();
        private final Map<String, SortedMap<String, String>> attributes = new LinkedHashMap<>();
        private final Map<String, List<Instance>> instances = new LinkedHashMap<>();
        private final Map<String, String> origins = new LinkedHashMap<>();
        private final Map<String, List<String>> instanceOrigins = new HashMap<>();

        private Builder(String source) {
            this.prefix = source + ".";
        }

        /** Adds names to flag set {@code feature} (created even when {@code names} is empty). */
        public Builder flags(String feature, Iterable<String> names) {
            SortedSet<String> set = flags.computeIfAbsent(prefix + feature, k -> new TreeSet<>());
            names.forEach(set::add);
            return this;
        }

        /** Sets one attribute of attribute map {@code feature}. */
        public Builder attribute(String feature, String name, String value) {
            attributes.computeIfAbsent(prefix + feature, k -> new TreeMap<>()).put(name, value);
            return this;
        }

        /** Sets many attributes of attribute map {@code feature} (created even when empty). */
        public Builder attributes(String feature, Map<String, String> values) {
            attributes.computeIfAbsent(prefix + feature, k -> new TreeMap<>()).putAll(values);
            return this;
        }

        /** Appends one instance to {@code feature}. */
        public Builder instance(String feature, Map<String, String> values) {
            return instance(feature, values, null);
        }

        /** Appends one instance to {@code feature}, read from {@code origin} (its directory; null for none). */
        public Builder instance(String feature, Map<String, String> values, String origin) {
            String key = prefix + feature;
            List<Instance> list = instances.computeIfAbsent(key, k -> new ArrayList<>());
            list.add(Instance.of(values));
            List<String> origins = instanceOrigins.get(key);
            if (origin != null && origins == null) {
                origins = new ArrayList<>();
                instanceOrigins.put(key, origins);
            }
            if (origins != null) {
                while (origins.size() < list.size() - 1) {
                    origins.add(null); // instances appended before without an origin
                }
                origins.add(origin);
            }
            return this;
        }

        /** Declares instance list {@code feature}, so that an empty list is still a discovered fact. */
        public Builder instances(String feature) {
            instances.computeIfAbsent(prefix + feature, k -> new ArrayList<>());
            return this;
        }

        /** Records where {@code feature} was read from. */
        public Builder origin(String feature, String where) {
            origins.put(prefix + feature, where);
            return this;
        }

        public Features build() {
            SortedMap<String, SortedSet<String>> f = new TreeMap<>();
            flags.forEach((k, v) -> f.put(k, Collections.unmodifiableSortedSet(new TreeSet<>(v))));
            SortedMap<String, SortedMap<String, String>> a = new TreeMap<>();
            attributes.forEach((k, v) -> a.put(k, Collections.unmodifiableSortedMap(new TreeMap<>(v))));
            SortedMap<String, List<Instance>> i = new TreeMap<>();
            instances.forEach((k, v) -> i.put(k, List.copyOf(v)));
            Map<String, List<String>> io = new HashMap<>();
            instanceOrigins.forEach((k, v) -> io.put(k, Collections.unmodifiableList(new ArrayList<>(v))));
            return new Features(Collections.unmodifiableSortedMap(f), Collections.unmodifiableSortedMap(a),
                    Collections.unmodifiableSortedMap(i), Collections.unmodifiableMap(new HashMap<>(origins)),
                    Collections.unmodifiableMap(io));
        }
    }
}
