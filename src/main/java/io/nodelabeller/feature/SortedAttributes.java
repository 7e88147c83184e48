package io.nodelabeller.feature;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An instance's attributes: an immutable map sorted by name, held as two arrays. A big host has thousands of
 * instances of five to eight attributes each, kept for a whole cycle: as a {@code TreeMap} (40 bytes an entry, a map
 * and an unmodifiable view on top) they were a third of the cycle's features and pushed it into full collections;
 * the JDK has no compact sorted map, and the one Guava has is not worth a dependency (docs/performance.md).
 */
final class SortedAttributes extends AbstractMap<String, String> {

    private final String[] names;
    private final String[] values;

    private SortedAttributes(String[] names, String[] values) {
        this.names = names;
        this.values = values;
    }

    /** {@code attributes} sorted by name (no null names: a {@code NullPointerException}, as a {@code TreeMap} gives). */
    static SortedAttributes of(Map<String, String> attributes) {
        if (attributes instanceof SortedAttributes s) {
            return s;
        }
        String[] names = attributes.keySet().toArray(new String[0]);
        Arrays.sort(names);
        String[] values = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            values[i] = attributes.get(names[i]);
        }
        return new SortedAttributes(names, values);
    }

    private int indexOf(Object name) {
        return name instanceof String s ? Arrays.binarySearch(names, s) : -1;
    }

    @Override
    public String get(Object name) {
        int i = indexOf(name);
        return i >= 0 ? values[i] : null;
    }

    @Override
    public boolean containsKey(Object name) {
        return indexOf(name) >= 0;
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        for (int i = 0; i < names.length; i++) {
            action.accept(names[i], values[i]);
        }
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, String>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < names.length;
                    }

                    @Override
                    public Entry<String, String> next() {
                        if (next >= names.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new SimpleImmutableEntry<>(names[i], values[i]);
                    }
                };
            }

            @Override
            public int size() {
                return names.length;
            }
        };
    }
}
