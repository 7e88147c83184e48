package io.nodelabeller.source.storage;

import io.nodelabeller.label.Label;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.nodelabeller.testing.Labels.flags;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The storage label: a non-rotational block device on each fake host, with the files it was read from. */
class StorageLabelerTest {

    @Test
    void storage() throws Exception {
        HostFs gpu = Hosts.fs("gpu-server");
        List<Label> labels = new StorageLabeler().labels(new StorageSource().discover(gpu, m -> { }));
        assertEquals(List.of("storage-nonrotationaldisk"), flags(labels));
        assertTrue(labels.get(0).evidence().endsWith(gpu.path("/sys/block") + "/{md0, md1, nvme0n1, nvme1n1, nvme2n1, nvme3n1, "
                + "nvme4n1, nvme5n1}/queue/rotational"), labels.get(0).evidence());
        // loop and zram devices count, as in NFD (source/storage/storage.go lists every /sys/block entry): the VM's only disk spins
        assertEquals(List.of("storage-nonrotationaldisk"),
                flags(new StorageLabeler().labels(new StorageSource().discover(Hosts.fs("cloud-vm"), m -> { }))));
        assertEquals(List.of(), flags(new StorageLabeler().labels(new StorageSource().discover(Hosts.fs("hostile"), m -> { }))));
    }
}
