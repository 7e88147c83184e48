package io.nodelabeller.source.memory;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemorySourceTest {

    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    private Features discover(HostFs host) throws Exception {
        return new MemorySource().discover(host, warnings::add);
    }

    private void write(String path, String content) throws Exception {
        Path p = tmp.resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    @Test
    void gpuServer() throws Exception {
        Features f = discover(Hosts.fs("gpu-server"));
        assertEquals(Map.of("is_numa", "true", "node_count", "2"), f.attributes("memory.numa"));
        assertEquals(Map.of("enabled", "false"), f.attributes("memory.swap"));
        assertEquals(Map.of("enabled", "true", "hugepages-1Gi", "16", "hugepages-2Mi", "0"), f.attributes("memory.hugepages"));
        assertEquals(List.of(), f.instances("memory.nv"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void cloudVm() throws Exception {
        Features f = discover(Hosts.fs("cloud-vm"));
        assertEquals(Map.of("is_numa", "false", "node_count", "1"), f.attributes("memory.numa"));
        assertEquals(Map.of("enabled", "false", "hugepages-1Gi", "0", "hugepages-2Mi", "0"), f.attributes("memory.hugepages"));
    }

    @Test
    void swapNvdimmAndDax() throws Exception {
        write("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n/dev/dm-1  partition\t8388604\t0\t-2\n\n");
        write("sys/bus/nd/devices/region0/devtype", "nd_pmem\n");
        write("sys/bus/nd/devices/region0/mode", "");
        write("sys/bus/nd/devices/dax0.0/devtype", "nd_dax\n");
        write("sys/bus/nd/devices/dax0.0/mode", "devdax\n");
        Features f = discover(new HostFs(tmp));
        assertEquals("true", f.attribute("memory.swap", "enabled"));
        assertEquals(List.of(Map.of("name", "dax0.0", "devtype", "nd_dax", "mode", "devdax"),
                        Map.of("name", "region0", "devtype", "nd_pmem", "mode", "")),
                f.instances("memory.nv").stream().map(Instance::attributes).toList());
        assertEquals(new HostFs(tmp).path("/sys/bus/nd/devices/dax0.0").toString(), f.instanceOrigin("memory.nv", 0));
        // NUMA and huge pages were missing with no sysfs to show the kernel lacks them: each lost alone, with its
        // own warning.
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(f.attributes("memory.numa").isEmpty());
    }

    @Test
    void hostileTreeLosesOnlyTheBrokenParts() throws Exception {
        Features f = discover(Hosts.fs("hostile"));
        // no sys/bus/node beside a visible sysfs: a kernel without NUMA, one node, nothing lost
        assertEquals(Map.of("is_numa", "false", "node_count", "1"), f.attributes("memory.numa"));
        assertEquals(Map.of("enabled", "false"), f.attributes("memory.swap"));
        assertEquals(Map.of("enabled", "true", "hugepages-1Gi", "2"), f.attributes("memory.hugepages"));
        assertTrue(f.instances("memory.nv").isEmpty());
        assertEquals(3, warnings.size(), warnings.toString());
    }

    @Test
    void nothingReadableFailsTheSource() {
        assertThrows(Exception.class, () -> discover(new HostFs(tmp)));
    }

    /**
     * A minimal VM kernel (no CONFIG_NUMA, no NVDIMM bus, no CONFIG_HUGETLBFS) makes none of those sysfs
     * directories (drivers/base/node.c registers the node bus only with NUMA): a node without that hardware, not a
     * failure, and nothing to warn about on a healthy node.
     */
    @Test
    void aKernelWithoutNumaNvdimmOrHugePagesHasNoneOfThemAndWarnsOfNothing() throws Exception {
        Files.createDirectories(tmp.resolve("sys/devices/system/cpu"));
        write("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n");
        Features f = discover(new HostFs(tmp));
        assertEquals(Map.of("is_numa", "false", "node_count", "1"), f.attributes("memory.numa"));
        assertEquals(Map.of("enabled", "false"), f.attributes("memory.swap"));
        assertEquals(Map.of("enabled", "false"), f.attributes("memory.hugepages"));
        assertEquals(List.of(), f.instances("memory.nv"));
        assertEquals(List.of(), warnings);
    }

    @ParameterizedTest
    @CsvSource({"2048,2Mi", "1048576,1Gi", "64,64Ki", "1536,1536Ki", "16384,16Mi", "524288,512Mi", "16777216,16Gi"})
    void pageSizesAsKubernetesQuantities(long kib, String quantity) {
        assertEquals(quantity, MemorySource.binaryQuantity(kib));
    }
}
