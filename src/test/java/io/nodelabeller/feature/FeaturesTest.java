package io.nodelabeller.feature;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class FeaturesTest {

    private static Features pci(String... vendors) {
        Features.Builder b = Features.builder("pci").origin("device", "/sys/bus/pci/devices");
        for (int i = 0; i < vendors.length; i++) {
            b.instance("device", Map.of("vendor", vendors[i]), "/sys/bus/pci/devices/0000:0" + i + ":00.0");
        }
        return b.build();
    }

    @Test
    void eachInstanceKeepsItsOwnOrigin() {
        Features f = Features.builder("usb")
                .instance("device", Map.of("vendor", "0001"))
                .instance("device", Map.of("vendor", "0002"), "/sys/bus/usb/devices/1-2")
                .instance("device", Map.of("vendor", "0003"))
                .instance("device", Map.of("vendor", "0004"), "/sys/bus/usb/devices/1-4")
                .build();
        assertNull(f.instanceOrigin("usb.device", 0));
        assertEquals("/sys/bus/usb/devices/1-2", f.instanceOrigin("usb.device", 1));
        assertNull(f.instanceOrigin("usb.device", 2));
        assertEquals("/sys/bus/usb/devices/1-4", f.instanceOrigin("usb.device", 3));
        assertNull(f.instanceOrigin("usb.device", 4));
        assertNull(f.instanceOrigin("usb.device", -1));
        assertNull(f.instanceOrigin("pci.device", 0));
    }

    @Test
    void aUnionIsTheMergesInOrderTheLastWinning() {
        Features kernel = Features.builder("kernel").attribute("version", "full", "6.8.0")
                .origin("version", "/proc/sys/kernel/osrelease").build();
        Features pci = pci("10de", "8086");
        Features again = Features.builder("kernel").attribute("version", "full", "6.9.1").build();
        List<Features> parts = List.of(kernel, Features.empty(), pci, again);

        Features union = Features.union(parts);
        assertEquals(kernel.merge(Features.empty()).merge(pci).merge(again), union);
        assertEquals("6.9.1", union.attribute("kernel.version", "full"));
        assertEquals("/proc/sys/kernel/osrelease", union.origin("kernel.version")); // the later part has none
        assertEquals("/sys/bus/pci/devices/0000:01:00.0", union.instanceOrigin("pci.device", 1));
        assertEquals("/sys/bus/pci/devices", union.origin("pci.device"));
        assertSame(pci, Features.union(List.of(Features.empty(), pci, Features.empty())));
        assertSame(Features.empty(), Features.union(List.of()));
    }

    @Test
    void anInstanceListReplacedTakesItsOriginsAlong() {
        Features later = Features.builder("pci").instance("device", Map.of("vendor", "15b3")).build();
        Features f = pci("10de", "8086").merge(later);
        assertEquals(List.of(Instance.of(Map.of("vendor", "15b3"))), f.instances("pci.device"));
        assertNull(f.instanceOrigin("pci.device", 0), "the replaced list's first origin is not the new device's");

        Features both = pci("10de").merge(pci("8086", "1af4"));
        assertEquals("/sys/bus/pci/devices/0000:01:00.0", both.instanceOrigin("pci.device", 1));
        assertEquals("8086", both.instances("pci.device").get(0).get("vendor"));
    }
}
