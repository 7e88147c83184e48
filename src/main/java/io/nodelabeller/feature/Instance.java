package io.nodelabeller.feature;

import java.util.Map;

/** One discovered thing (a PCI device, a network interface, a GPU): a sorted, immutable attribute map. */
public record Instance(Map<String, String> attributes) {

    public Instance {
        attributes = SortedAttributes.of(attributes);
    }

    public static Instance of(Map<String, String> attributes) {
        return new Instance(attributes);
    }

    /** The attribute's value, or {@code null} when the instance has none of that name. */
    public String get(String name) {
        return attributes.get(name);
    }

    public boolean has(String name) {
        return attributes.containsKey(name);
    }
}
