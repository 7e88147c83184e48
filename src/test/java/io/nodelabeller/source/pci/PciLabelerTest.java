package io.nodelabeller.source.pci;

import io.nodelabeller.source.pci.PciConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.pci.PciSource;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestConfigs;
import io.nodelabeller.testing.NfdPciRootfs1;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PciLabelerTest {

    private static final String P = "feature.node.kubernetes.io/pci-";

    @TempDir
    Path tmp;

    private static Features pci(HostFs host) throws Exception {
        return new PciSource().discover(host, m -> { });
    }

    private static Set<String> names(List<Label> labels) {
        assertTrue(labels.stream().allMatch(l -> l.key().startsWith(P) && l.value().equals("true")), labels.toString());
        return labels.stream().map(l -> l.key().substring(P.length())).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<String> list(String csv) {
        return csv.isEmpty() ? List.of() : Arrays.asList(csv.split(";"));
    }

    @Test
    void nfdGoldenDefaultConfig() throws Exception {
        Features f = pci(new HostFs(NfdPciRootfs1.write(tmp)));
        assertEquals(Set.of("0300_1a03.present", "0b40_8086.present", "0b40_8086.sriov.capable"),
                names(new PciLabeler(PciConfig.DEFAULT).labels(f)));
    }

    /** NFD's pci_test.go vectors: whitelist ["0c"] with various deviceLabelFields. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''|0c80_8086.present",
            "foo;bar|0c80_8086.present",
            "foo;class|0c80.present",
    })
    void nfdGoldenWhitelist0c(String fields, String expected) throws Exception {
        Features f = pci(new HostFs(NfdPciRootfs1.write(tmp)));
        assertEquals(Set.of(expected), names(new PciLabeler(TestConfigs.pci(List.of("0c"), list(fields))).labels(f)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // fields are put in NFD's fixed order whatever the config order
            "03|subsystem_device;device;class|0302_20b2_1463.present;0300_2000_2000.present;0302_20b2_1463.sriov.capable",
            "0680|vendor|10de.present",
            // whitelist entries are lower-cased; a prefix as short as one digit matches
            "0B;06|class|0680.present;0600.present;0604.present",
            "02|class;vendor;device|0207_15b3_101b.present;0200_15b3_101d.present;0200_15b3_101d.sriov.capable;0200_15b3_101e.present",
    })
    void gpuServerWithConfig(String whitelist, String fields, String expected) throws Exception {
        Features f = pci(Hosts.fs("gpu-server"));
        assertEquals(new TreeSet<>(list(expected)), names(new PciLabeler(TestConfigs.pci(list(whitelist), list(fields))).labels(f)));
    }

    @Test
    void gpuServerDefaultsAndEvidence() throws Exception {
        HostFs host = Hosts.fs("gpu-server");
        List<Label> labels = new PciLabeler(PciConfig.DEFAULT).labels(pci(host));
        assertEquals(Set.of("0300_1a03.present", "0302_10de.present", "0302_10de.sriov.capable"), names(labels));
        Map<String, String> evidence = labels.stream().collect(Collectors.toMap(Label::key, Label::evidence));
        String gpus = evidence.get(P + "0302_10de.present");
        assertTrue(gpus.contains("class='0302' vendor='10de'"), gpus);
        assertTrue(gpus.endsWith(" from " + host.path("/sys/bus/pci/devices") + "/{0000:07:00.0, 0000:0f:00.0, 0000:47:00.0, "
                + "0000:4e:00.0, 0000:87:00.0, 0000:90:00.0, 0000:b7:00.0, 0000:bd:00.0}"), gpus);
        assertTrue(evidence.get(P + "0302_10de.sriov.capable").contains("sriov_totalvfs='20'"));
        assertTrue(labels.stream().allMatch(l -> l.source().equals("pci")));
    }

    @Test
    void sriovCapableEvenWhenTotalVfsIsZeroAsNfd() throws Exception {
        Features f = Features.builder("pci").instance("device", Map.of("class", "0300", "vendor", "10de", "device", "1eb8",
                "subsystem_vendor", "10de", "subsystem_device", "12a2", "sriov_totalvfs", "0")).build();
        assertEquals(Set.of("0300_10de.present", "0300_10de.sriov.capable"), names(new PciLabeler(PciConfig.DEFAULT).labels(f)));
    }

    @Test
    void noPciFeaturesNoLabels() {
        assertEquals(List.of(), new PciLabeler(PciConfig.DEFAULT).labels(Features.empty()));
    }
}
