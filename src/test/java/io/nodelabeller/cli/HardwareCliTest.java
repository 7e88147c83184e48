package io.nodelabeller.cli;

import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HardwareCliTest {

    private static final String P = "feature.node.kubernetes.io/";

    private static Set<String> lines(CliTest.Result r) {
        assertEquals(0, r.code(), r.err());
        return new TreeSet<>(List.of(r.out().split("\n")));
    }

    @Test
    void printOnGpuServer() {
        Set<String> out = lines(CliTest.run("print", "--host-root", Hosts.root("gpu-server").toString()));
        for (String label : List.of("pci-0302_10de.present", "pci-0302_10de.sriov.capable", "pci-0300_1a03.present",
                "network-sriov.capable", "network-sriov.configured", "storage-nonrotationaldisk", "memory-numa",
                "usb-ef_046b_ffb0.present")) {
            assertTrue(out.contains(P + label + "=true"), label + " in\n" + out);
        }
        assertFalse(out.contains(P + "memory-swap=true"), out.toString());
    }

    @Test
    void printWithPciConfig(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path cfg = tmp.resolve("nfd.yaml");
        java.nio.file.Files.writeString(cfg, "sources:\n  pci:\n    deviceClassWhitelist: [\"0302\"]\n"
                + "    deviceLabelFields: [device, vendor]\n");
        Set<String> out = lines(CliTest.run("print", "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString()));
        assertTrue(out.contains(P + "pci-10de_20b2.present=true"), out.toString());
        assertFalse(out.contains(P + "pci-0302_10de.present=true"), out.toString());
    }

    @Test
    void explainShowsTheDeviceDirectories() {
        CliTest.Result r = CliTest.run("explain", "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("sys/bus/pci/devices/{0000:07:00.0, 0000:0f:00.0,"), r.out());
        assertTrue(r.out().contains("enp225s0f0np0 sriov_numvfs = '4'"), r.out());
    }

    @Test
    void hostileTreeNeverFailsThePrint() {
        Set<String> out = lines(CliTest.run("print", "--host-root", Hosts.root("hostile").toString()));
        assertTrue(out.contains(P + "pci-0300_10de.present=true"), out.toString());
    }
}
