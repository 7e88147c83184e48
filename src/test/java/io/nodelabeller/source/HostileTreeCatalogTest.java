package io.nodelabeller.source;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.cli.Cli;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Every source of the catalog — a new one included, without a line here — on the hostile tree (garbage in every
 * file a source reads, ids out of range, names with spaces): none throws or fails (the nvidia source may report NVML
 * missing on a node whose PCI scan shows an NVIDIA device, which is its designed answer, not a crash), and every
 * label that comes out is valid. HostileHardwareTest and HostileSysTreeTest check each source's details.
 */
class HostileTreeCatalogTest {

    @Test
    void everySourceOfTheCatalogSurvivesTheHostileTree() {
        Options options = new Options(Hosts.root("hostile"), Cli.NO_NVML, null, false, null, "node with spaces");
        Map<String, Source> sources = Catalog.sources(Config.DEFAULT, options, List.of("all"));
        assertEquals(Catalog.sourceNames(), List.copyOf(sources.keySet()), "every source of the catalog runs");
        Snapshot s = new Discovery(Hosts.fs("hostile"), sources).discover();
        List<String> failed = new ArrayList<>();
        for (SourceStatus st : s.statuses().values()) {
            boolean nvmlMissing = st.source().equals("nvidia") && st.error() != null
                    && st.error().startsWith("NVML unavailable on a node with an NVIDIA GPU");
            if (st.error() != null && !nvmlMissing) {
                failed.add(st.source() + ": " + st.error());
            }
        }
        assertEquals(List.of(), failed);
        LabelSet labels = Catalog.labelling(Config.DEFAULT, options).label(s.features());
        LabelValidity rules = LabelValidity.defaults();
        labels.asMap().forEach((k, v) -> assertNull(rules.problem(k, v), k + "=" + v));
    }
}
