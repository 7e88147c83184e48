package io.nodelabeller.source.network;

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

class NetworkSourceTest {

    private static Features discover(HostFs host) throws Exception {
        return new NetworkSource().discover(host, m -> { });
    }

    private static Map<String, String> named(Features f, String key, String name) {
        return f.instances(key).stream().filter(i -> name.equals(i.get("name"))).findFirst().map(Instance::attributes).orElseThrow();
    }

    @Test
    void gpuServerPhysicalAndVirtualInterfaces() throws Exception {
        HostFs host = Hosts.fs("gpu-server");
        Features f = discover(host);
        assertEquals(14, f.instances("network.device").size());
        assertEquals(List.of("docker0", "lo"), f.instances("network.virtual").stream().map(i -> i.get("name")).toList());
        assertEquals(Map.of("name", "enp225s0f0np0", "operstate", "up", "speed", "100000", "mtu", "9000",
                "sriov_totalvfs", "8", "sriov_numvfs", "4"), named(f, "network.device", "enp225s0f0np0"));
        assertEquals(Map.of("name", "lo", "operstate", "unknown", "mtu", "65536"), named(f, "network.virtual", "lo"));
        int idx = f.instances("network.device").indexOf(Instance.of(named(f, "network.device", "enp225s0f0np0")));
        assertEquals(host.path("/sys/class/net/enp225s0f0np0").toString(), f.instanceOrigin("network.device", idx));
    }

    @Test
    void cloudVmRealInterfaces() throws Exception {
        Features f = discover(Hosts.fs("cloud-vm"));
        assertEquals(List.of(Map.of("name", "eth0", "operstate", "up", "speed", "-1", "mtu", "1400")),
                f.instances("network.device").stream().map(Instance::attributes).toList());
        assertEquals(List.of("ifb0", "ifb1", "lo"), f.instances("network.virtual").stream().map(i -> i.get("name")).toList());
    }

    @Test
    void hostileValuesAreKeptAsFeaturesAndBondingMastersSkipped() throws Exception {
        Features f = discover(Hosts.fs("hostile"));
        assertEquals(Map.of("name", "eth0", "operstate", "up", "mtu", "1500", "sriov_totalvfs", "abc", "sriov_numvfs", "-1"),
                named(f, "network.device", "eth0"));
        assertEquals(List.of("veth-empty", "weird name"), f.instances("network.virtual").stream().map(i -> i.get("name")).toList());
    }

    @Test
    void noNetDirectoryIsNoInterfacesUnlessSysfsIsNotVisible(@TempDir Path tmp) throws Exception {
        AbsentHardware.check(new NetworkSource(), NetworkSource.NET, tmp);
    }
}
