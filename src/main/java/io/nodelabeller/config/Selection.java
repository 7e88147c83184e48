package io.nodelabeller.config;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** NFD's source-list syntax: "all", names, and "-name" to take one away. Result keeps the known order. */
public final class Selection {

    private Selection() {
    }

    /** The name an item of a selection refers to: "-pci" and "pci" both name pci. */
    public static String nameOf(String item) {
        String trimmed = item.trim();
        return trimmed.startsWith("-") ? trimmed.substring(1) : trimmed;
    }

    public static List<String> resolve(List<String> selection, List<String> known, String what) {
        Set<String> chosen = new LinkedHashSet<>();
        for (String raw : selection) {
            String item = raw.trim();
            if (item.isEmpty()) {
                continue;
            }
            boolean remove = item.startsWith("-");
            String name = nameOf(item);
            if (name.equals("all")) {
                if (remove) {
                    chosen.clear();
                } else {
                    chosen.addAll(known);
                }
                continue;
            }
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown " + what + " '" + name + "' (known: all, "
                        + String.join(", ", known) + ")");
            }
            if (remove) {
                chosen.remove(name);
            } else {
                chosen.add(name);
            }
        }
        return known.stream().filter(chosen::contains).toList();
    }
}
