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
 * {@code explain} can show the facts behind a label.
 */
public final class Features {

    private static final Features EMPTY = new Features(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), Map.of());

    private final SortedMap<String, SortedSet<String>> flags;
    private final SortedMap<String, SortedMap<String, String>> attributes;
    private final SortedMap<String, List<Instance>> instances;
    /** Looked up by key alone: a hash map (a big host has thousands, "pci.device[1234]", alike up to their ends). */
    private final Map<String, String> origins;

    private Features(SortedMap<String, SortedSet<String>> flags,
                     SortedMap<String, SortedMap<String, String>> attributes,
                     SortedMap<String, List<Instance>> instances,
                     Map<String, String> origins) {
        this.flags = flags;
        this.attributes = attributes;
        this.instances = instances;
        this.origins = origins;
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
        if (other.isEmpty() && other.origins.isEmpty()) {
            return this;
        }
        if (isEmpty() && origins.isEmpty()) {
            return other;
        }
        SortedMap<String, SortedSet<String>> f = new TreeMap<>(flags);
        f.putAll(other.flags);
        SortedMap<String, SortedMap<String, String>> a = new TreeMap<>(attributes);
        a.putAll(other.attributes);
        SortedMap<String, List<Instance>> i = new TreeMap<>(instances);
        i.putAll(other.instances);
        Map<String, String> o = new HashMap<>(origins);
        o.putAll(other.origins);
        return new Features(Collections.unmodifiableSortedMap(f), Collections.unmodifiableSortedMap(a),
                Collections.unmodifiableSortedMap(i), Collections.unmodifiableMap(o));
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
            instances.computeIfAbsent(prefix + feature, k -> new ArrayList<>()).add(Instance.of(values));
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
            return new Features(Collections.unmodifiableSortedMap(f), Collections.unmodifiableSortedMap(a),
                    Collections.unmodifiableSortedMap(i), Collections.unmodifiableMap(new HashMap<>(origins)));
        }
    }
}
