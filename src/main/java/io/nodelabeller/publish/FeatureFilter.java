package io.nodelabeller.publish;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NFD's {@code core.noPublishFeatures}: features left out of the NodeFeature object, each pattern a feature key
 * ({@code pci.device}) or a prefix ending in {@code *} ({@code usb.*}, {@code *}). Also renders what remains in
 * NFD's {@code spec.features} format.
 */
final class FeatureFilter {

    private final List<String> patterns;

    FeatureFilter(List<String> patterns) {
        this.patterns = List.copyOf(patterns);
    }

    boolean published(String key) {
        for (String p : patterns) {
            if (p.endsWith("*") ? key.startsWith(p.substring(0, p.length() - 1)) : key.equals(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code {flags: {key: {elements: {name: {}}}}, attributes: {key: {elements: {name: value}}},
     * instances: {key: {elements: [{attributes: {...}}]}}}}, keys sorted: nfd-master's NodeFeature schema.
     */
    Map<String, Object> nfdFeatures(Features features) {
        Map<String, Object> flags = new LinkedHashMap<>();
        features.allFlags().forEach((key, names) -> {
            if (published(key)) {
                Map<String, Object> elements = new LinkedHashMap<>();
                names.forEach(n -> elements.put(n, Map.of()));
                flags.put(key, Map.of("elements", elements));
            }
        });
        Map<String, Object> attributes = new LinkedHashMap<>();
        features.allAttributes().forEach((key, values) -> {
            if (published(key)) {
                attributes.put(key, Map.of("elements", new LinkedHashMap<>(values)));
            }
        });
        Map<String, Object> instances = new LinkedHashMap<>();
        features.allInstances().forEach((key, list) -> {
            if (published(key)) {
                List<Object> elements = new ArrayList<>();
                for (Instance i : list) {
                    elements.add(Map.of("attributes", new LinkedHashMap<>(i.attributes())));
                }
                instances.put(key, Map.of("elements", elements));
            }
        });
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("flags", flags);
        out.put("attributes", attributes);
        out.put("instances", instances);
        return out;
    }
}
