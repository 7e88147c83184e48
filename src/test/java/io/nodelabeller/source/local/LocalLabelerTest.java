package io.nodelabeller.source.local;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.testing.Hosts;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The local labels, through the labelling stage as the agent runs them: each feature file key as written
 * (unprefixed keys get NFD's prefix), invalid names and values dropped with their reason, valid ones kept.
 */
class LocalLabelerTest {

    private static final Clock NOW = Clock.fixed(Instant.parse("2026-06-01T12:00:00Z"), ZoneOffset.UTC);

    private static Features discover(Path root) throws Exception {
        return new LocalSource(NOW, null).discover(new HostFs(root), m -> { });
    }

    @Test
    void gpuServerLabelsThroughLabelling() throws Exception {
        LabelSet set = new Labelling(Map.of(LocalSource.NAME, new LocalLabeler()), LabelValidity.defaults(), null)
                .label(discover(Hosts.root("gpu-server")));
        assertEquals(Map.of(
                "feature.node.kubernetes.io/node-pool", "a100-inference",
                "example.com/rack", "r12-u07",
                "example.com/datacenter", "fra2",
                "feature.node.kubernetes.io/infiniband", "true",
                "feature.node.kubernetes.io/warranty", "active",
                "example.com/owner", "ml-platform"), set.asMap());
    }

    @Test
    void hostileInvalidLabelsAreDroppedOthersKept() throws Exception {
        LabelSet set = new Labelling(Map.of(LocalSource.NAME, new LocalLabeler()), LabelValidity.defaults(), null)
                .label(discover(Hosts.root("hostile")));
        Map<String, String> labels = set.asMap();
        assertEquals("yes", labels.get("vendor.example.com/good"));
        assertEquals("", labels.get("feature.node.kubernetes.io/empty-value"));
        assertEquals("ok", labels.get("feature.node.kubernetes.io/plain-after-garbage"));
        for (Map.Entry<String, String> l : labels.entrySet()) {
            assertEquals(null, LabelValidity.defaults().problem(l.getKey(), l.getValue()), l.toString());
        }
        java.util.Set<String> dropped = new java.util.TreeSet<>(set.dropped().stream().map(d -> d.label().key()).toList());
        assertEquals(new java.util.TreeSet<>(List.of("feature.node.kubernetes.io/-starts-with-dash", "kubernetes.io/denied",
                "node-role.kubernetes.io/worker", "a/b/c", "feature.node.kubernetes.io/value-with-spaces",
                "feature.node.kubernetes.io/value-too-long", "feature.node.kubernetes.io/equals-in-value",
                "feature.node.kubernetes.io/spaced-key ", "feature.node.kubernetes.io/caf\uFFFD",
                "feature.node.kubernetes.io/",
                "feature.node.kubernetes.io/name-that-is-far-too-long-for-a-kubernetes-label-because-it-has-more-than-63")),
                dropped);
    }
}
