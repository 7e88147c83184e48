package io.nodelabeller.feature;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SortedAttributesTest {

    /** A pci.device instance's attributes in the order the source reads them (mandatory files, then optional). */
    private static Map<String, String> device() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("class", "0302");
        m.put("vendor", "10de");
        m.put("device", "20b2");
        m.put("subsystem_vendor", "10de");
        m.put("subsystem_device", "1463");
        m.put("sriov_totalvfs", "20");
        m.put("iommu_group/type", "identity");
        return m;
    }

    @Test
    void itIsTheSameMapAsATreeMapOfTheSameEntries() {
        Map<String, String> a = SortedAttributes.of(device());
        TreeMap<String, String> t = new TreeMap<>(device());
        assertEquals(List.copyOf(t.keySet()), List.copyOf(a.keySet()));
        assertEquals(List.copyOf(t.values()), List.copyOf(a.values()));
        assertEquals(List.copyOf(t.entrySet()), List.copyOf(a.entrySet()));
        assertEquals(t, a);
        assertEquals(a, t);
        assertEquals(a, new HashMap<>(device()));
        assertEquals(t.hashCode(), a.hashCode());
        assertEquals(t.toString(), a.toString());
        List<String> visited = new ArrayList<>();
        a.forEach((k, v) -> visited.add(k + "=" + v));
        assertEquals(t.entrySet().stream().map(Object::toString).toList(), visited);
    }

    @Test
    void lookups() {
        Map<String, String> a = SortedAttributes.of(device());
        for (Map.Entry<String, String> e : device().entrySet()) {
            assertEquals(e.getValue(), a.get(e.getKey()), e.getKey());
            assertTrue(a.containsKey(e.getKey()), e.getKey());
        }
        assertNull(a.get("iommu/intel-iommu/version"));
        assertFalse(a.containsKey("iommu/intel-iommu/version"));
        assertNull(a.get(42));
        assertFalse(a.containsKey(null));
        assertEquals(7, a.size());
        assertTrue(SortedAttributes.of(Map.of()).isEmpty());
        assertEquals(Map.of(), SortedAttributes.of(Map.of()));
    }

    @Test
    void itCannotBeChanged() {
        Map<String, String> a = SortedAttributes.of(device());
        assertThrows(UnsupportedOperationException.class, () -> a.put("class", "0300"));
        assertThrows(UnsupportedOperationException.class, () -> a.remove("class"));
        assertThrows(UnsupportedOperationException.class, a::clear);
        assertThrows(UnsupportedOperationException.class, () -> a.entrySet().iterator().next().setValue("x"));
        var it = a.keySet().iterator();
        it.next();
        assertThrows(UnsupportedOperationException.class, it::remove);
        Map<String, String> source = device();
        Map<String, String> copy = SortedAttributes.of(source);
        source.put("class", "0300");
        assertEquals("0302", copy.get("class"), "a copy, not a view");
    }

    @Test
    void aNullNameIsRefusedAsATreeMapRefusesIt() {
        Map<String, String> m = new HashMap<>(device());
        m.put(null, "x");
        assertThrows(NullPointerException.class, () -> SortedAttributes.of(m));
    }

    @Test
    void anInstanceHoldsItsAttributesSoAndCopiesThemOnce() {
        Instance i = Instance.of(device());
        assertTrue(i.attributes() instanceof SortedAttributes);
        assertSame(i.attributes(), new Instance(i.attributes()).attributes());
        assertEquals(Instance.of(new TreeMap<>(device())), i);
    }
}
