package io.nodelabeller.source;

import io.nodelabeller.source.pci.PciLabeler;
import io.nodelabeller.source.usb.UsbLabeler;
import io.nodelabeller.source.memory.MemoryLabeler;
import io.nodelabeller.source.storage.StorageLabeler;
import io.nodelabeller.source.network.NetworkLabeler;
import io.nodelabeller.source.pci.PciConfig;
import io.nodelabeller.source.usb.UsbConfig;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.memory.MemorySource;
import io.nodelabeller.source.network.NetworkSource;
import io.nodelabeller.source.pci.PciSource;
import io.nodelabeller.source.storage.StorageSource;
import io.nodelabeller.source.usb.UsbSource;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestConfigs;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hostile tree: every hardware source survives, and only valid labels come out of labelling. */
class HostileHardwareTest {

    private static final String P = "feature.node.kubernetes.io/";

    private static Snapshot discover() {
        return new Discovery(Hosts.fs("hostile"), Map.of(PciSource.NAME, new PciSource(), UsbSource.NAME, new UsbSource(),
                MemorySource.NAME, new MemorySource(), StorageSource.NAME, new StorageSource(),
                NetworkSource.NAME, new NetworkSource())).discover();
    }

    private static LabelSet label(Snapshot s, UsbConfig usb) {
        Map<String, Labeler> labelers = Map.of(PciSource.NAME, new PciLabeler(PciConfig.DEFAULT), UsbSource.NAME, new UsbLabeler(usb),
                MemorySource.NAME, new MemoryLabeler(), StorageSource.NAME, new StorageLabeler(), NetworkSource.NAME, new NetworkLabeler());
        return new Labelling(labelers, LabelValidity.defaults(), null).label(s.features());
    }

    @Test
    void everySourceSucceedsWithWarningsForWhatItLost() {
        Snapshot s = discover();
        assertEquals(List.of(), List.copyOf(s.failedSources()));
        Map<String, SourceStatus> st = s.statuses();
        assertEquals(9, st.get("pci").warnings().size());
        // no sys/bus/node is a kernel without NUMA, not a loss: the nd file, the two bad huge page sizes are
        assertEquals(3, st.get("memory").warnings().size(), st.get("memory").warnings().toString());
        assertEquals(0, st.get("network").warnings().size());
    }

    @Test
    void onlyValidLabelsAndTheInvalidOnesDroppedWithAReason() {
        LabelSet set = label(discover(), UsbConfig.DEFAULT);
        assertEquals(List.of(P + "pci-0300_10de.present", P + "pci-0b40_8086.present", P + "pci-0b40_8086.sriov.capable",
                        P + "usb-fe_18d1_9302.present", P + "usb-ff_0403_6001.present", P + "usb-ff_18d1_9302.present"),
                List.copyOf(set.asMap().keySet()));
        set.labels().values().forEach(l -> assertNull(LabelValidity.defaults().problem(l.key(), l.value()), l.toString()));
        // the 70-character vendor makes the name too long; "be ef" puts a space into it
        assertEquals(List.of("usb-ef_dead_be ef.present", "usb-ff_" + "x".repeat(70) + "_0001.present"),
                set.dropped().stream().map(d -> d.label().name()).sorted().toList());
        assertTrue(set.dropped().stream().allMatch(d -> d.reason() != null && !d.reason().isEmpty()));
    }

    @Test
    void aSerialWithSpacesIsDroppedWhenItIsALabelField() {
        LabelSet set = label(discover(), TestConfigs.usb(List.of("ff"), List.of("vendor", "serial")));
        assertTrue(set.dropped().stream().anyMatch(d -> d.label().name().equals("usb-0403_A B C 12 34.present")), set.dropped().toString());
        assertTrue(set.asMap().containsKey(P + "usb-18d1_.present"), set.asMap().toString());
        set.labels().values().forEach(l -> assertNull(LabelValidity.defaults().problem(l.key(), l.value()), l.toString()));
    }
}
