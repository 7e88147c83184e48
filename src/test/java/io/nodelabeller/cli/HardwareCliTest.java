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

    private static Set<String> lines(Cli.Result r) {
        assertEquals(0, r.code(), r.err());
        return new TreeSet<>(List.of(r.out().split("\n")));
    }

    @Test
    void printOnGpuServer() {
        Set<String> out = lines(Cli.run("print", "--host-root", Hosts.root("gpu-server").toString()));
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
        Set<String> out = lines(Cli.run("print", "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString()));
        assertTrue(out.contains(P + "pci-10de_20b2.present=true"), out.toString());
        assertFalse(out.contains(P + "pci-0302_10de.present=true"), out.toString());
    }

    @Test
    void explainShowsTheDeviceDirectories() {
        Cli.Result r = Cli.run("explain", "--host-root", Hosts.root("gpu-server").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("sys/bus/pci/devices/{0000:07:00.0, 0000:0f:00.0,"), r.out());
        assertTrue(r.out().contains("network.device sriov_numvfs = '4' from ")
                && r.out().contains("/sys/class/net/enp225s0f0np0/device/sriov_numvfs"), r.out());
    }

    @Test
    void hostileTreeNeverFailsThePrint() {
        Set<String> out = lines(Cli.run("print", "--host-root", Hosts.root("hostile").toString()));
        assertTrue(out.contains(P + "pci-0300_10de.present=true"), out.toString());
    }

    /**
     * NFD's sources.pci|usb.deviceLabelFields is lenient (source/pci/pci.go: unknown fields are dropped with a
     * warning, none valid means the default): a migrated config with a typo still loads and labels, loudly, with the
     * key path of each; check-config reports the same lines as problems.
     */
    @Test
    void unknownDeviceLabelFieldsAreIgnoredWithAWarningAndNoneKnownMeansTheDefault(@org.junit.jupiter.api.io.TempDir
                                                                                     java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path typo = tmp.resolve("typo.yaml");
        java.nio.file.Files.writeString(typo, "sources:\n  pci:\n    deviceLabelFields: [class, model]\n");
        Cli.Result r = Cli.run("print", "--config", typo.toString(), "--sources", "pci",
                "--host-root", Hosts.root("gpu-server").toString());
        assertTrue(lines(r).contains(P + "pci-0302.present=true"), r.out());
        assertTrue(r.err().contains(typo + ": sources.pci.deviceLabelFields[1]: unknown field 'model' ignored, as NFD "
                + "ignores it"), r.err());

        java.nio.file.Path none = tmp.resolve("none.yaml");
        java.nio.file.Files.writeString(none, "sources:\n  pci:\n    deviceLabelFields: [model]\n  usb:\n    deviceLabelFields: []\n");
        Cli.Result d = Cli.run("print", "--config", none.toString(), "--sources", "pci",
                "--host-root", Hosts.root("gpu-server").toString());
        assertTrue(lines(d).contains(P + "pci-0302_10de.present=true"), "the default fields class,vendor: " + d.out());
        assertTrue(d.err().contains(none + ": sources.usb.deviceLabelFields: no known field: the default "
                + "class,vendor,device applies"), d.err());

        Cli.Result check = Cli.run("check-config", "--config", typo.toString());
        assertEquals(2, check.code(), "check-config is strict: what NFD accepts with a warning is a problem there");
        assertTrue(check.err().contains("config error: " + typo + ": sources.pci.deviceLabelFields[1]: unknown field "
                + "'model' ignored"), check.err());
    }
}
