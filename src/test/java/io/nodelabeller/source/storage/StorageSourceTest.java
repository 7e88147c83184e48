package io.nodelabeller.source.storage;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.AbsentHardware;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StorageSourceTest {

    private static Features discover(HostFs host) throws Exception {
        return new StorageSource().discover(host, m -> { });
    }

    @Test
    void gpuServerNvme() throws Exception {
        Features f = discover(Hosts.fs("gpu-server"));
        assertEquals(List.of("md0", "md1", "nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1", "nvme4n1", "nvme5n1"),
                f.instances("storage.block").stream().map(i -> i.get("name")).toList());
        assertEquals(Map.of("name", "md0", "dax", "0", "rotational", "0", "nr_zones", "0", "zoned", "none"),
                f.instances("storage.block").get(0).attributes());
    }

    @Test
    void cloudVmRealQueueFiles() throws Exception {
        Features f = discover(Hosts.fs("cloud-vm"));
        Instance vda = f.instances("storage.block").stream().filter(i -> i.get("name").equals("vda")).findFirst().orElseThrow();
        assertEquals("1", vda.get("rotational"));
        assertEquals(10, f.instances("storage.block").size());
    }

    @Test
    void hostileDevicesKeepWhatIsReadable() throws Exception {
        Features f = discover(Hosts.fs("hostile"));
        assertEquals(List.of(Map.of("name", "sda", "rotational", "1"), Map.of("name", "sdx", "rotational", ""),
                        Map.of("name", "sdy", "rotational", "spinning"), Map.of("name", "sdz")),
                f.instances("storage.block").stream().map(Instance::attributes).toList());
    }

    @Test
    void noBlockDirectoryIsNoBlockDevicesUnlessSysfsIsNotVisible(@TempDir Path tmp) throws Exception {
        AbsentHardware.check(new StorageSource(), StorageSource.BLOCK, tmp);
    }
}
