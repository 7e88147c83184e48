package io.nodelabeller.source;

import io.nodelabeller.source.memory.MemoryLabeler;
import io.nodelabeller.source.storage.StorageLabeler;
import io.nodelabeller.source.network.NetworkLabeler;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.memory.MemorySource;
import io.nodelabeller.source.network.NetworkSource;
import io.nodelabeller.source.storage.StorageSource;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryStorageNetworkLabelerTest {

    private static final String P = "feature.node.kubernetes.io/";

    private static List<String> keys(List<Label> labels) {
        assertTrue(labels.stream().allMatch(l -> l.value().equals("true")), labels.toString());
        return labels.stream().map(l -> l.key().substring(P.length())).sorted().toList();
    }

    @Test
    void memoryGpuServerAndCloudVm() throws Exception {
        assertEquals(List.of("memory-numa"),
                keys(new MemoryLabeler().labels(new MemorySource().discover(Hosts.fs("gpu-server"), m -> { }))));
        assertEquals(List.of(), keys(new MemoryLabeler().labels(new MemorySource().discover(Hosts.fs("cloud-vm"), m -> { }))));
    }

    @Test
    void memorySwapAndNvdimm() {
        Features f = Features.builder("memory")
                .attributes("numa", Map.of("is_numa", "false", "node_count", "1"))
                .attributes("swap", Map.of("enabled", "true"))
                .instance("nv", Map.of("name", "region0", "devtype", "nd_pmem"))
                .instance("nv", Map.of("name", "dax0.0", "devtype", "nd_dax"), "/host/sys/bus/nd/devices/dax0.0")
                .build();
        List<Label> labels = new MemoryLabeler().labels(f);
        assertEquals(List.of("memory-nv.dax", "memory-nv.present", "memory-swap"), keys(labels));
        assertTrue(labels.stream().anyMatch(l -> l.evidence().contains("/host/sys/bus/nd/devices/dax0.0")), labels.toString());
        Features pmemOnly = Features.builder("memory").instance("nv", Map.of("name", "region0", "devtype", "nd_pmem")).build();
        assertEquals(List.of("memory-nv.present"), keys(new MemoryLabeler().labels(pmemOnly)));
    }

    @Test
    void storage() throws Exception {
        HostFs gpu = Hosts.fs("gpu-server");
        List<Label> labels = new StorageLabeler().labels(new StorageSource().discover(gpu, m -> { }));
        assertEquals(List.of("storage-nonrotationaldisk"), keys(labels));
        assertTrue(labels.get(0).evidence().endsWith(gpu.path("/sys/block") + "/{md0, md1, nvme0n1, nvme1n1, nvme2n1, nvme3n1, "
                + "nvme4n1, nvme5n1}/queue/rotational"), labels.get(0).evidence());
        // loop and zram devices count, as in NFD (source/storage/storage.go lists every /sys/block entry): the VM's only disk spins
        assertEquals(List.of("storage-nonrotationaldisk"),
                keys(new StorageLabeler().labels(new StorageSource().discover(Hosts.fs("cloud-vm"), m -> { }))));
        assertEquals(List.of(), keys(new StorageLabeler().labels(new StorageSource().discover(Hosts.fs("hostile"), m -> { }))));
    }

    @Test
    void networkGpuServer() throws Exception {
        List<Label> labels = new NetworkLabeler().labels(new NetworkSource().discover(Hosts.fs("gpu-server"), m -> { }));
        assertEquals(List.of("network-sriov.capable", "network-sriov.configured"), keys(labels));
        String configured = labels.stream().filter(l -> l.key().endsWith("configured")).findFirst().orElseThrow().evidence();
        assertTrue(configured.contains("enp225s0f0np0 sriov_numvfs = '4'") && !configured.contains("enp225s0f1np1"), configured);
        assertEquals(List.of(), keys(new NetworkLabeler().labels(new NetworkSource().discover(Hosts.fs("cloud-vm"), m -> { }))));
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
        assertEquals(expected.isEmpty() ? List.of() : List.of(expected.split(" ")), keys(new NetworkLabeler().labels(f)));
    }
}
