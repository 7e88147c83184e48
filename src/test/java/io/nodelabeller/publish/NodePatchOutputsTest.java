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
 * listed in its tracking annotation in the patch that creates it, and unlisted in the one that removes it. Another
 * writer's output is taken over only when nfd-master lists it as its own.
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
    void aTaintNfdMasterHandsOverIsClaimedBeforeItsValueChangesAndAnOwnedOneIsRemoved() {
        Map<String, Object> nfds = taint("vendor.io/dedicated", "cpu", "NoSchedule");
        Map<String, Object> mine = taint("vendor.io/old", null, "PreferNoSchedule");
        NodePatch.Node node = new NodePatch.Node(null, m(NodePatch.MANAGED_TAINTS, "vendor.io/old:PreferNoSchedule",
                NodePatch.NFD_TAINTS, "vendor.io/dedicated=cpu:NoSchedule"), "7", List.of(nfds, UNREACHABLE, mine), null, null);
        NodePatch.Desired want = new NodePatch.Desired(m(), m(), m("vendor.io/dedicated:NoSchedule", "gpu"), m());
        NodePatch.Plan first = NodePatch.plan(node, want);
        assertEquals(List.of(
                new NodePatch.Op("replace", "/metadata/resourceVersion", "7"),
                new NodePatch.Op("replace", "/metadata/annotations/node-labeller.io~1managed-taints", "vendor.io/dedicated:NoSchedule"),
                new NodePatch.Op("add", "/spec/taints", List.of(nfds, UNREACHABLE))), first.node(),
                "the handed-over taint keeps its value in the claiming patch");
        NodePatch.Node claimed = new NodePatch.Node(null, m(NodePatch.MANAGED_TAINTS, "vendor.io/dedicated:NoSchedule",
                NodePatch.NFD_TAINTS, "vendor.io/dedicated=cpu:NoSchedule"), "8", List.of(nfds, UNREACHABLE), null, null);
        assertEquals(List.of(new NodePatch.Op("replace", "/metadata/resourceVersion", "8"),
                new NodePatch.Op("add", "/spec/taints", List.of(taint("vendor.io/dedicated", "gpu", "NoSchedule"), UNREACHABLE))),
                NodePatch.plan(claimed, want).node());
    }

    /** An admin's taint with the key and effect a rule wants is never listed nor changed: it is reported instead. */
    @Test
    void anotherWritersTaintIsLeftAsItIs() {
        Map<String, Object> admins = taint("nvidia.com/gpu", null, "NoSchedule");
        NodePatch.Node node = new NodePatch.Node(null, m("x.io/y", "z"), "7", List.of(admins), null, null);
        NodePatch.Plan plan = NodePatch.plan(node, new NodePatch.Desired(m(), m(), m("nvidia.com/gpu:NoSchedule", "mine"), m()));
        assertEquals(List.of(), plan.node(), "neither listed nor changed");
        assertEquals(List.of("taint nvidia.com/gpu:NoSchedule"), List.copyOf(plan.leftAlone()));
        NodePatch.Plan same = NodePatch.plan(node, new NodePatch.Desired(m(), m(), m("nvidia.com/gpu:NoSchedule", ""), m()));
        assertEquals(new NodePatch.Plan(List.of(), List.of()), same, "the same taint: nothing to do, nothing to say");
    }

    @Test
    void extendedResourcesAreListedInTheStatusPatchThatWritesThemAndUnlistedInTheOneThatRemovesThem() {
        NodePatch.Desired want = new NodePatch.Desired(m(), m(), m(), m("vendor.io/widgets", "1000"));
        NodePatch.Node bare = new NodePatch.Node(null, null, "1", null, m("cpu", "8"), m("cpu", "8"));
        NodePatch.Plan create = NodePatch.plan(bare, want);
        assertEquals(List.of(), create.node(), "the node patch leaves extended resources alone");
        assertEquals(List.of(new NodePatch.Op("add", "/status/capacity/vendor.io~1widgets", "1000"),
                new NodePatch.Op("add", "/status/allocatable/vendor.io~1widgets", "1000"),
                new NodePatch.Op("replace", "/metadata/resourceVersion", "1"),
                new NodePatch.Op("add", "/metadata/annotations", Map.of()),
                new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-extended-resources", "vendor.io/widgets")),
                create.status());

        // the API server writes 1000 back as 1k: the same amount, nothing to do
        NodePatch.Node written = new NodePatch.Node(null, m(NodePatch.MANAGED_EXTENDED_RESOURCES, "vendor.io/widgets"), "3", null,
                m("cpu", "8", "vendor.io/widgets", "1k"), m("cpu", "8", "vendor.io/widgets", "1k"));
        assertEquals(new NodePatch.Plan(List.of(), List.of()), NodePatch.plan(written, want));

        // no longer wanted: removed from status and unlisted in the same patch
        NodePatch.Desired none = new NodePatch.Desired(m(), m(), m(), m());
        NodePatch.Plan remove = NodePatch.plan(written, none);
        assertEquals(List.of(), remove.node());
        assertEquals(List.of(new NodePatch.Op("remove", "/status/capacity/vendor.io~1widgets", null),
                new NodePatch.Op("remove", "/status/allocatable/vendor.io~1widgets", null),
                new NodePatch.Op("remove", "/metadata/annotations/node-labeller.io~1managed-extended-resources", null)), remove.status());
    }

    /**
     * Another writer's resource (a device plugin's) is never listed nor changed; one nfd-master lists as its own is
     * claimed first, its amount set in the next patch.
     */
    @Test
    void anotherWritersExtendedResourceIsLeftAndNfdMastersIsTakenOver() {
        NodePatch.Desired want = new NodePatch.Desired(m(), m(), m(), m("vendor.io/widgets", "4"));
        NodePatch.Node plugin = new NodePatch.Node(null, m("x.io/y", "z"), "1", null, m("vendor.io/widgets", "8"), m("vendor.io/widgets", "8"));
        NodePatch.Plan left = NodePatch.plan(plugin, want);
        assertEquals(List.of(), left.status());
        assertEquals(List.of("extended resource vendor.io/widgets"), List.copyOf(left.leftAlone()));

        NodePatch.Node nfd = new NodePatch.Node(null, m(NodePatch.NFD_EXTENDED_RESOURCES, "vendor.io/widgets"), "1", null,
                m("vendor.io/widgets", "8"), m("vendor.io/widgets", "8"));
        assertEquals(List.of(new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-extended-resources",
                "vendor.io/widgets")), NodePatch.plan(nfd, want).status(), "claimed, the amount untouched");
        NodePatch.Node claimed = new NodePatch.Node(null, m(NodePatch.NFD_EXTENDED_RESOURCES, "vendor.io/widgets",
                NodePatch.MANAGED_EXTENDED_RESOURCES, "vendor.io/widgets"), "2", null, m("vendor.io/widgets", "8"), m("vendor.io/widgets", "8"));
        assertEquals(List.of(new NodePatch.Op("replace", "/status/capacity/vendor.io~1widgets", "4"),
                new NodePatch.Op("replace", "/status/allocatable/vendor.io~1widgets", "4")), NodePatch.plan(claimed, want).status());
    }

    @Test
    void annotationsAreOwnedLikeLabels() {
        NodePatch.Node node = new NodePatch.Node(null, m("vendor.io/note", "theirs", "vendor.io/nfds", "old", "other.io/x", "1",
                NodePatch.NFD_ANNOTATIONS, "vendor.io/nfds"), "5", null, null, null);
        NodePatch.Desired want = new NodePatch.Desired(m(), m("vendor.io/note", "mine", "vendor.io/new", "v", "vendor.io/nfds", "new"), m(), m());
        NodePatch.Plan first = NodePatch.plan(node, want);
        assertEquals(List.of(new NodePatch.Op("add", "/metadata/annotations/vendor.io~1new", "v"),
                new NodePatch.Op("add", "/metadata/annotations/node-labeller.io~1managed-annotations", "vendor.io/new,vendor.io/nfds")),
                first.node(), "another writer's annotation is left, nfd-master's only claimed");
        assertEquals(List.of("annotation vendor.io/note"), List.copyOf(first.leftAlone()));
        List<String> after = new ArrayList<>();
        NodePatch.Node claimed = new NodePatch.Node(null, m("vendor.io/note", "theirs", "vendor.io/nfds", "old", "other.io/x", "1",
                "vendor.io/new", "v", NodePatch.NFD_ANNOTATIONS, "vendor.io/nfds",
                NodePatch.MANAGED_ANNOTATIONS, "vendor.io/new,vendor.io/nfds"), "6", null, null, null);
        NodePatch.plan(claimed, want).node().forEach(op -> after.add(op.op() + " " + op.path()));
        assertEquals(List.of("replace /metadata/annotations/vendor.io~1nfds"), after);
    }

    /** nfd-master leaves its default prefix out of its lists, and writes taints as key=value:Effect. */
    @Test
    void nfdMastersListsAreReadAsItWritesThem() {
        Map<String, String> a = m(NodePatch.NFD_LABELS, "cpu-cpuid.AVX,kernel-version.full,nvidia.com/gpu.product",
                NodePatch.NFD_TAINTS, "feature.node.kubernetes.io/special-node=true:PreferNoSchedule,vendor.io/d:NoExecute");
        assertEquals(java.util.Set.of("feature.node.kubernetes.io/cpu-cpuid.AVX", "feature.node.kubernetes.io/kernel-version.full",
                "nvidia.com/gpu.product"), NodePatch.handedOver(a, NodePatch.NFD_LABELS));
        assertEquals(java.util.Set.of("feature.node.kubernetes.io/special-node:PreferNoSchedule", "vendor.io/d:NoExecute"),
                TaintList.handedOver(a));
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
        assertEquals(List.of("remove /status/capacity/vendor.io~1w", "remove /status/allocatable/vendor.io~1w",
                "remove /metadata/annotations/node-labeller.io~1managed-extended-resources"),
                prune.status().stream().map(op -> op.op() + " " + op.path()).toList());
    }
}
