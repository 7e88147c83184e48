package io.nodelabeller.publish;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The patches for rule outputs, computed on nodes as the API server returns them: annotations and taints in the node
 * patch (taints written whole, pinned to the resourceVersion), extended resources through the status subresource as
 * nfd-master writes them (capacity and allocatable; pkg/nfd-master/nfd-master.go createExtendedResourcePatches), each
 * claimed in its tracking annotation before it is written and listed until it is removed.
 */
class NodePatchOutputsTest {

    private static SortedMap<String, String> m(String... kv) {
        SortedMap<String, String> out = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put(kv[i], kv[i + 1]);
        }
        return out;
    }

    private static Map<String, Object> taint(String key, String value, String effect) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("effect", effect);
        t.put("key", key);
        if (value != null) {
            t.put("value", value);
        }
        return t;
    }

    /** A node-controller taint, with its timeAdded: written back exactly as it was. */
    private static final Map<String, Object> UNREACHABLE = new LinkedHashMap<>(Map.of("effect", "NoExecute",
            "key", "node.kubernetes.io/unreachable", "timeAdded", "2026-11-25T04:00:00Z"));

    @Test
    void aTaintIsAddedBesideOthersAndTheListIsPinned() {
        NodePatch.Node node = new NodePatch.Node(m("a", "b"), m("x.io/y", "z"), "41", List.of(UNREACHABLE), null, null);
        NodePatch.Desired want = new NodePatch.Desired(m(), m(), m("vendor.io/dedicated:NoSchedule", "gpu"), m());
        NodePatch.Plan plan = NodePatch.plan(node, want);
        assertEquals(List.of(
                new NodePatch.Op("replace", "/metadata/resourceVersion", "41"),
                new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-taints", "vendor.io/dedicated:NoSchedule"),
                new NodePatch.Op("add", "/spec/taints", List.of(UNREACHABLE, new LinkedHashMap<>(Map.of("key", "vendor.io/dedicated",
                        "value", "gpu", "effect", "NoSchedule"))))), plan.node());
        assertEquals(List.of(), plan.status());
    }

    @Test
    void aForeignTaintIsClaimedBeforeItsValueChangesAndAnOwnedOneIsRemoved() {
        Map<String, Object> foreign = taint("vendor.io/dedicated", "cpu", "NoSchedule");
        Map<String, Object> mine = taint("vendor.io/old", null, "PreferNoSchedule");
        NodePatch.Node node = new NodePatch.Node(null, m(NodePatch.MANAGED_TAINTS, "vendor.io/old:PreferNoSchedule"), "7",
                List.of(foreign, UNREACHABLE, mine), null, null);
        NodePatch.Desired want = new NodePatch.Desired(m(), m(), m("vendor.io/dedicated:NoSchedule", "gpu"), m());
        NodePatch.Plan first = NodePatch.plan(node, want);
        assertEquals(List.of(
                new NodePatch.Op("replace", "/metadata/resourceVersion", "7"),
                new NodePatch.Op("replace", "/metadata/annotations/node-labeller.io~1managed-taints", "vendor.io/dedicated:NoSchedule"),
                new NodePatch.Op("add", "/spec/taints", List.of(foreign, UNREACHABLE))), first.node(),
                "the foreign taint keeps its value in the claiming patch");
        NodePatch.Node claimed = new NodePatch.Node(null, m(NodePatch.MANAGED_TAINTS, "vendor.io/dedicated:NoSchedule"), "8",
                List.of(foreign, UNREACHABLE), null, null);
        assertEquals(List.of(new NodePatch.Op("replace", "/metadata/resourceVersion", "8"),
                new NodePatch.Op("add", "/spec/taints", List.of(taint("vendor.io/dedicated", "gpu", "NoSchedule"), UNREACHABLE))),
                NodePatch.plan(claimed, want).node());
    }

    @Test
    void extendedResourcesAreClaimedThenWrittenThroughStatusThenUnlisted() {
        NodePatch.Desired want = new NodePatch.Desired(m(), m(), m(), m("vendor.io/widgets", "1000"));
        NodePatch.Node bare = new NodePatch.Node(null, null, "1", null, m("cpu", "8"), m("cpu", "8"));
        NodePatch.Plan claim = NodePatch.plan(bare, want);
        assertEquals(List.of(new NodePatch.Op("replace", "/metadata/resourceVersion", "1"),
                new NodePatch.Op("add", "/metadata/annotations", Map.of()),
                new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-extended-resources", "vendor.io/widgets")),
                claim.node());
        assertEquals(List.of(), claim.status(), "nothing written before it is listed");

        NodePatch.Node listed = new NodePatch.Node(null, m(NodePatch.MANAGED_EXTENDED_RESOURCES, "vendor.io/widgets"), "2", null,
                m("cpu", "8"), m("cpu", "8"));
        assertEquals(List.of(new NodePatch.Op("add", "/status/capacity/vendor.io~1widgets", "1000"),
                new NodePatch.Op("add", "/status/allocatable/vendor.io~1widgets", "1000")), NodePatch.plan(listed, want).status());

        // the API server writes 1000 back as 1k: the same amount, nothing to do
        NodePatch.Node written = new NodePatch.Node(null, m(NodePatch.MANAGED_EXTENDED_RESOURCES, "vendor.io/widgets"), "3", null,
                m("cpu", "8", "vendor.io/widgets", "1k"), m("cpu", "8", "vendor.io/widgets", "1k"));
        assertEquals(new NodePatch.Plan(List.of(), List.of()), NodePatch.plan(written, want));

        // no longer wanted: removed from status while still listed, then unlisted
        NodePatch.Desired none = new NodePatch.Desired(m(), m(), m(), m());
        NodePatch.Plan remove = NodePatch.plan(written, none);
        assertEquals(List.of(), remove.node(), "still listed until the status patch removed it");
        assertEquals(List.of(new NodePatch.Op("remove", "/status/capacity/vendor.io~1widgets", null),
                new NodePatch.Op("remove", "/status/allocatable/vendor.io~1widgets", null)), remove.status());
        NodePatch.Node removed = new NodePatch.Node(null, m(NodePatch.MANAGED_EXTENDED_RESOURCES, "vendor.io/widgets"), "4", null,
                m("cpu", "8"), m("cpu", "8"));
        assertEquals(List.of(new NodePatch.Op("remove", "/metadata/annotations/node-labeller.io~1managed-extended-resources", null)),
                NodePatch.plan(removed, none).node());
    }

    @Test
    void annotationsAreOwnedLikeLabels() {
        NodePatch.Node node = new NodePatch.Node(null, m("vendor.io/note", "theirs", "other.io/x", "1"), "5", null, null, null);
        NodePatch.Desired want = new NodePatch.Desired(m(), m("vendor.io/note", "mine", "vendor.io/new", "v"), m(), m());
        List<NodePatch.Op> first = NodePatch.plan(node, want).node();
        assertEquals(List.of(new NodePatch.Op("add", "/metadata/annotations/vendor.io~1new", "v"),
                new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-annotations", "vendor.io/new,vendor.io/note")),
                first, "the foreign value is only claimed");
        List<String> after = new ArrayList<>();
        NodePatch.Node claimed = new NodePatch.Node(null, m("vendor.io/note", "theirs", "other.io/x", "1", "vendor.io/new", "v",
                NodePatch.MANAGED_ANNOTATIONS, "vendor.io/new,vendor.io/note"), "6", null, null, null);
        NodePatch.plan(claimed, want).node().forEach(op -> after.add(op.op() + " " + op.path()));
        assertEquals(List.of("replace /metadata/annotations/vendor.io~1note"), after);
    }

    /**
     * A kind switched off is left as it is, tracking annotation included: after taints are switched off (and with them
     * the policy's taintsAllowed), no patch may touch taints, or every patch would be denied.
     */
    @Test
    void aKindSwitchedOffIsLeftAsItIs() {
        Map<String, Object> mine = taint("vendor.io/dedicated", "gpu", "NoSchedule");
        NodePatch.Node node = new NodePatch.Node(m("a", "1"), m(NodePatch.MANAGED_ANNOTATION, "a",
                NodePatch.MANAGED_TAINTS, "vendor.io/dedicated:NoSchedule", NodePatch.MANAGED_EXTENDED_RESOURCES, "vendor.io/w"),
                "9", List.of(mine), m("vendor.io/w", "4"), m("vendor.io/w", "4"));
        assertEquals(new NodePatch.Plan(List.of(), List.of()), NodePatch.plan(node, NodePatch.Desired.labels(m("a", "1"))));
        NodePatch.Plan prune = NodePatch.plan(node, NodePatch.Desired.nothing());
        assertEquals(List.of("replace /metadata/resourceVersion", "remove /metadata/labels/a",
                "remove /metadata/annotations/node-labeller.io~1managed-labels",
                "remove /metadata/annotations/node-labeller.io~1managed-taints", "remove /spec/taints"),
                prune.node().stream().map(op -> op.op() + " " + op.path()).toList(), "prune removes every kind");
        assertEquals(List.of("remove /status/capacity/vendor.io~1w", "remove /status/allocatable/vendor.io~1w"),
                prune.status().stream().map(op -> op.op() + " " + op.path()).toList());
    }
}
