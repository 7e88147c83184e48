package io.nodelabeller.source.usb;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Instance;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.AbsentHardware;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UsbSourceTest {

    private static List<Map<String, String>> devices(HostFs host) throws IOException {
        Features f = new UsbSource().discover(host, m -> { });
        return f.instances("usb.device").stream().map(Instance::attributes).toList();
    }

    @Test
    void gpuServerDevicesWithInterfaceClassWhenDeviceClassIs00() throws IOException {
        // 1-1, a BMC's virtual keyboard and mouse: class 00 with two HID interfaces (03), two instances as in NFD
        assertEquals(List.of(
                        Map.of("class", "03", "vendor", "046b", "device", "ff10"),
                        Map.of("class", "03", "vendor", "046b", "device", "ff10"),
                        Map.of("class", "ef", "vendor", "046b", "device", "ffb0", "serial", "1234567890"),
                        Map.of("class", "09", "vendor", "1d6b", "device", "0002", "serial", "0000:c3:00.3"),
                        Map.of("class", "09", "vendor", "1d6b", "device", "0003", "serial", "0000:c3:00.3")),
                devices(Hosts.fs("gpu-server")));
    }

    @Test
    void originsNameTheDeviceDirectory() throws IOException {
        HostFs host = Hosts.fs("gpu-server");
        Features f = new UsbSource().discover(host, m -> { });
        assertEquals(host.path("/sys/bus/usb/devices/1-1").toString(), f.instanceOrigin("usb.device", 1));
        assertEquals(host.path("/sys/bus/usb/devices/1-2").toString(), f.instanceOrigin("usb.device", 2));
    }

    @Test
    void hostileTree() throws IOException {
        List<Map<String, String>> d = devices(Hosts.fs("hostile"));
        assertEquals(Map.of("class", "ff", "vendor", "0403", "device", "6001", "serial", "A B C 12 34"), d.get(0));
        // 1-2: class 00 without interfaces gives nothing; 1-4: only an empty idProduct gives an empty instance.
        assertEquals("x".repeat(70), d.get(1).get("vendor"));
        assertEquals(Map.of(), d.get(2));
        assertEquals(List.of("fe", "ff", "ff"), d.subList(3, 6).stream().map(m -> m.get("class")).toList());
        assertEquals("be ef", d.get(6).get("device"));
        assertEquals(7, d.size());
    }

    /**
     * A VM without a USB controller has no /sys/bus/usb: no devices, nothing to warn about. No visible sysfs (the
     * host's /sys not mounted under the host root) or a devices directory that cannot be listed fails the source,
     * and the node keeps its USB labels rather than being told it has no USB devices.
     */
    @Test
    void noUsbBusIsNoDevicesNoVisibleSysfsFailsTheSource(@TempDir Path tmp) throws Exception {
        IOException noSysfs = assertThrows(IOException.class, () -> new UsbSource().discover(new HostFs(tmp), m -> { }));
        assertTrue(noSysfs.getMessage().contains("sysfs is not visible"), noSysfs.getMessage());
        AbsentHardware.check(new UsbSource(), UsbSource.DEVICES, tmp);
    }
}
