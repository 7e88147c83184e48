package io.nodelabeller.source.memory;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodelabeller.testing.Labels.flags;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The memory labels: NUMA on the DGX tree, none on the VM, swap and NVDIMM from their features. */
class MemoryLabelerTest {

    @Test
    void memoryGpuServerAndCloudVm() throws Exception {
        assertEquals(List.of("memory-numa"),
                flags(new MemoryLabeler().labels(new MemorySource().discover(Hosts.fs("gpu-server"), m -> { }))));
        assertEquals(List.of(), flags(new MemoryLabeler().labels(new MemorySource().discover(Hosts.fs("cloud-vm"), m -> { }))));
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
        assertEquals(List.of("memory-nv.dax", "memory-nv.present", "memory-swap"), flags(labels));
        assertTrue(labels.stream().anyMatch(l -> l.evidence().contains("/host/sys/bus/nd/devices/dax0.0")), labels.toString());
        Features pmemOnly = Features.builder("memory").instance("nv", Map.of("name", "region0", "devtype", "nd_pmem")).build();
        assertEquals(List.of("memory-nv.present"), flags(new MemoryLabeler().labels(pmemOnly)));
    }
}
