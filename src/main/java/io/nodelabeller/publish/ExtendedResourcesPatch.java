package io.nodelabeller.publish;

import io.nodelabeller.label.Quantities;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The second patch of a {@link NodePatch.Plan}: extended resources, written through the {@code nodes/status}
 * subresource (the API server keeps a status update's metadata changes and resets only its spec, so a resource is
 * listed in the same patch that creates it).
 */
final class ExtendedResourcesPatch {

    private ExtendedResourcesPatch() {
    }

    /**
     * The status patch for extended resources: capacity and allocatable added (and listed, in this same patch),
     * changed (owned, numerically different: the API server writes quantities canonically), taken over (handed over
     * by nfd-master: listed here, the amount in the next patch) or removed (owned, no longer desired: unlisted here),
     * with the tracking annotation {@value NodePatch#MANAGED_EXTENDED_RESOURCES} brought to what is owned after it.
     */
    static List<NodePatch.Op> ops(NodePatch.Node node, Map<String, String> annotations,
                                  SortedMap<String, String> desired, Bookkeeping bk, SortedSet<String> leftAlone) {
        SortedSet<String> owned = NodePatch.owned(annotations, bk.extendedResources());
        Set<String> others = bk.listedByOthers(annotations, bk.extendedResources());
        Set<String> handed = NodePatch.claimable(annotations, NodePatch.NFD_EXTENDED_RESOURCES, bk, bk.extendedResources());
        Map<String, String> capacity = node.capacity() == null ? Map.of() : node.capacity();
        Map<String, String> allocatable = node.allocatable() == null ? Map.of() : node.allocatable();
        List<NodePatch.Op> ops = new ArrayList<>();
        SortedSet<String> owns = new TreeSet<>();
        for (Map.Entry<String, String> e : desired.entrySet()) {
            String k = e.getKey();
            String have = capacity.get(k);
            if (others.contains(k) && !owned.contains(k)) {
                if (!sameAmount(have, e.getValue())) {
                    leftAlone.add("extended resource " + k); // another install's, even while it is not on the node
                }
            } else if (have == null) {
                ops.add(new NodePatch.Op("add", "/status/capacity/" + NodePatch.escape(k), e.getValue()));
                ops.add(new NodePatch.Op("add", "/status/allocatable/" + NodePatch.escape(k), e.getValue()));
                owns.add(k);
            } else if (owned.contains(k)) {
                if (!sameAmount(have, e.getValue()) || !sameAmount(allocatable.get(k), e.getValue())) {
                    ops.add(new NodePatch.Op("replace", "/status/capacity/" + NodePatch.escape(k), e.getValue()));
                    ops.add(new NodePatch.Op(allocatable.containsKey(k) ? "replace" : "add", "/status/allocatable/" + NodePatch.escape(k),
                            e.getValue()));
                }
                owns.add(k);
            } else if (handed.contains(k)) {
                owns.add(k); // the amount, when it differs, in the next patch
            } else if (!sameAmount(have, e.getValue())) {
                leftAlone.add("extended resource " + k);
            }
        }
        for (String k : owned) {
            if (!desired.containsKey(k) && capacity.containsKey(k)) {
                ops.add(new NodePatch.Op("remove", "/status/capacity/" + NodePatch.escape(k), null));
                if (allocatable.containsKey(k)) {
                    ops.add(new NodePatch.Op("remove", "/status/allocatable/" + NodePatch.escape(k), null));
                }
            }
        }
        if (!ops.isEmpty() && node.capacity() == null) {
            ops.add(0, new NodePatch.Op("add", "/status/capacity", Collections.emptyMap()));
        }
        if (!ops.isEmpty() && node.allocatable() == null && ops.stream().anyMatch(o -> o.path().startsWith("/status/allocatable/"))) {
            ops.add(node.capacity() == null ? 1 : 0, new NodePatch.Op("add", "/status/allocatable", Collections.emptyMap()));
        }
        Map<String, SortedSet<String>> list = new LinkedHashMap<>();
        list.put(bk.extendedResources(), owns);
        List<NodePatch.Op> trackingOps = NodePatch.tracking(annotations, list);
        if (!trackingOps.isEmpty() && annotations.isEmpty()) {
            List<NodePatch.Op> created = new ArrayList<>();
            if (NodePatch.pinnable(node)) {
                created.add(new NodePatch.Op("replace", "/metadata/resourceVersion", node.resourceVersion()));
            }
            created.add(new NodePatch.Op("add", "/metadata/annotations", Collections.emptyMap()));
            created.addAll(trackingOps);
            trackingOps = created;
        }
        ops.addAll(trackingOps);
        return List.copyOf(ops);
    }

    private static boolean sameAmount(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        BigInteger x = Quantities.whole(a);
        return x != null ? x.equals(Quantities.whole(b)) : a.equals(b);
    }
}
