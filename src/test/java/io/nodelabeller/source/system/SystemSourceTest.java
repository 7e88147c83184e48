package io.nodelabeller.source.system;

import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SystemSourceTest {

    private final List<String> warnings = new ArrayList<>();

    @Test
    void gpuServer() {
        Features f = new SystemSource("dgx-01").discover(Hosts.fs("gpu-server"), warnings::add);
        assertEquals("ubuntu", f.attribute("system.osrelease", "ID"));
        assertEquals("22.04", f.attribute("system.osrelease", "VERSION_ID"));
        assertEquals("22", f.attribute("system.osrelease", "VERSION_ID.major"));
        assertEquals("04", f.attribute("system.osrelease", "VERSION_ID.minor"));
        assertEquals("Ubuntu 22.04.3 LTS", f.attribute("system.osrelease", "PRETTY_NAME"));
        assertEquals("DGXA100 920-23687-2530-000", f.attribute("system.dmiid", "product_name"));
        assertEquals("NVIDIA", f.attribute("system.dmiid", "sys_vendor"));
        assertEquals("", f.attribute("system.dmiid", "board_asset_tag"));
        assertEquals(16, f.attributes("system.dmiid").size());
        assertEquals(Map.of("nodename", "dgx-01"), f.attributes("system.name"));
        assertEquals(List.of(), warnings);
    }

    @Test
    void noNodeNameNoDmi(@TempDir Path empty) {
        Features f = new SystemSource(null).discover(new HostFs(empty), warnings::add);
        // system.name is always there, empty without NODE_NAME (NFD's utils.NodeName())
        assertEquals(Map.of("nodename", ""), f.attributes("system.name"));
        assertEquals(java.util.Set.of("system.name"), f.allAttributes().keySet());
        assertEquals(1, warnings.size());
        Features vm = new SystemSource(null).discover(Hosts.fs("cloud-vm"), warnings::add);
        assertEquals("debian", vm.attribute("system.osrelease", "ID"));
        assertEquals("12", vm.attribute("system.osrelease", "VERSION_ID.major"));
        assertNull(vm.attribute("system.osrelease", "VERSION_ID.minor"));
        assertTrue(vm.attributes("system.dmiid").isEmpty());
    }

    @Test
    void osReleaseParsedAsNfd() {
        Map<String, String> r = SystemSource.parseOsRelease(List.of(
                "ID=\"opensuse leap\"", "VERSION_ID='15.5'", "EMPTY=\"\"", "NOTHING=", "=x", "no equals", " INDENTED=x",
                "NAME=\"a=b\"", "# COMMENT=x"));
        // a quoted empty value is an empty attribute, as NFD's `^(\w+)=(.+)` then strings.Trim makes it; KEY= is none
        assertEquals(Map.of("ID", "opensuse leap", "VERSION_ID", "15.5", "VERSION_ID.major", "15",
                "VERSION_ID.minor", "5", "NAME", "a=b", "EMPTY", ""), r);
        assertFalse(SystemSource.parseOsRelease(List.of("VERSION_ID=rolling")).containsKey("VERSION_ID.major"));
        Map<String, String> centos = SystemSource.parseOsRelease(List.of("VERSION_ID=7.9.2009"));
        assertEquals("7", centos.get("VERSION_ID.major"));
        assertEquals("9", centos.get("VERSION_ID.minor"));
    }
}
