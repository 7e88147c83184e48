package io.nodelabeller.source.system;

import io.nodelabeller.feature.Features;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.nodelabeller.testing.Labels.NFD;
import static io.nodelabeller.testing.Labels.map;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The system labels: os-release's ID and VERSION_ID (with major and minor), none of DMI or the node name. */
class SystemLabelerTest {

    @Test
    void systemOsRelease() {
        Features f = Features.builder("system")
                .attribute("osrelease", "ID", "rhel").attribute("osrelease", "VERSION_ID", "9.4")
                .attribute("osrelease", "VERSION_ID.major", "9").attribute("osrelease", "VERSION_ID.minor", "4")
                .attribute("osrelease", "NAME", "Red Hat Enterprise Linux")
                .attribute("dmiid", "product_name", "X").attribute("name", "nodename", "n1")
                .build();
        assertEquals(Map.of(NFD + "system-os_release.ID", "rhel", NFD + "system-os_release.VERSION_ID", "9.4",
                NFD + "system-os_release.VERSION_ID.major", "9", NFD + "system-os_release.VERSION_ID.minor", "4"),
                map(new SystemLabeler().labels(f)));
    }
}
