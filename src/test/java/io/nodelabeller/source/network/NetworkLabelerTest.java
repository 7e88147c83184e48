package io.nodelabeller.source.network;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static io.nodelabeller.testing.Labels.flags;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SR-IOV labels: capable and configured only from positive integer VF counts of physical devices. */
class NetworkLabelerTest {

    @Test
    void networkGpuServer() throws Exception {
        List<Label> labels = new NetworkLabeler().labels(new NetworkSource().discover(Hosts.fs("gpu-server"), m -> { }));
        assertEquals(List.of("network-sriov.capable", "network-sriov.configured"), flags(labels));
        String configured = labels.stream().filter(l -> l.key().endsWith("configured")).findFirst().orElseThrow().evidence();
        assertTrue(configured.contains("network.device sriov_numvfs = '4' from ")
                && configured.contains("/enp225s0f0np0/device/sriov_numvfs") && !configured.contains("enp225s0f1np1"), configured);
        assertEquals(List.of(), flags(new NetworkLabeler().labels(new NetworkSource().discover(Hosts.fs("cloud-vm"), m -> { }))));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "8|4|network-sriov.capable network-sriov.configured",
            "8|0|network-sriov.capable",
            "0|0|''",
            "abc|-1|''",
            "' 8'|+2|network-sriov.configured",
            "99999999999999999999|1|network-sriov.configured",
    })
    void networkCountsMustBePositiveIntegers(String total, String num, String expected) {
        Features f = Features.builder("network")
                .instance("device", Map.of("name", "eth0", "sriov_totalvfs", total, "sriov_numvfs", num))
                .instance("virtual", Map.of("name", "vf-rep", "sriov_totalvfs", "8"))
                .build();
        assertEquals(expected.isEmpty() ? List.of() : List.of(expected.split(" ")), flags(new NetworkLabeler().labels(f)));
    }
}
