package io.nodelabeller.publish;

import io.nodelabeller.label.Quantities;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The JSON Patches (RFC 6902) that bring a Node from what it is to what is desired, touching only what this agent
 * owns: labels, and the rule outputs — node annotations, taints ({@code spec.taints}) and extended resources
 * ({@code status.capacity}, written through the {@code nodes/status} subresource, hence a patch of its own). Pure: no
 * I/O, so every rule here is checked by the property tests.
 *
 * <p>Rules, the same for every kind:
 * <ul>
 * <li>Owned keys are those listed (comma-separated, sorted) in the kind's tracking annotation:
 *     {@value #MANAGED_ANNOTATION}, {@value #MANAGED_ANNOTATIONS}, {@value #MANAGED_TAINTS} (entries
 *     {@code key:effect}: a node has one taint per key and effect), {@value #MANAGED_EXTENDED_RESOURCES}.</li>
 * <li>A desired key is added, or replaced when it is owned. One that exists with another value but is not owned is
 *     taken over (as nfd-master does) in two steps: this patch only lists the key as owned, the next one, computed on
 *     the result, sets the value. So a patch never changes anything that was not listed as owned before it, which is
 *     what the admission policy enforces.</li>
 * <li>An owned key that is no longer desired is removed; a key that is not owned is never changed. An extended
 *     resource stays listed until the status patch has removed it, so that the removal is still the agent's own.</li>
 * <li>A tracking annotation is rewritten whenever its owned set changes, and removed once nothing is owned.</li>
 * <li>The API server keeps no empty map, and {@code add /metadata/labels/x} fails when {@code labels} is absent, so a
 *     missing map is created first. Creating it ({@code add} of a whole map) would wipe a map that appeared since the
 *     node was read, so such a patch also pins {@code metadata.resourceVersion}: the API server then rejects it with
 *     409 when the node changed in between. The taint list is written whole, so a patch that changes it is pinned
 *     too (other components add and remove taints).</li>
 * </ul>
 */
public final class NodePatch {

    public static final String MANAGED_ANNOTATION = "node-labeller.io/managed-labels";
    public static final String MANAGED_ANNOTATIONS = "node-labeller.io/managed-annotations";
    public static final String MANAGED_TAINTS = "node-labeller.io/managed-taints";
    public static final String MANAGED_EXTENDED_RESOURCES = "node-labeller.io/managed-extended-resources";
    /** Every tracking annotation, in the order a patch writes them. */
    public static final List<String> TRACKING = List.of(MANAGED_ANNOTATION, MANAGED_ANNOTATIONS, MANAGED_TAINTS,
            MANAGED_EXTENDED_RESOURCES);

    /** One JSON Patch operation; {@code value} is null for {@code remove}. */
    public record Op(String op, String path, Object value) {
        public Op {
            Objects.requireNonNull(op);
            Objects.requireNonNull(path);
        }
    }

    /**
     * The node as read. Maps and lists may be null when the node has none; a taint is its JSON object (key, value,
     * effect, timeAdded), kept whole so that other components' taints are written back exactly as they were.
     */
    public record Node(Map<String, String> labels, Map<String, String> annotations, String resourceVersion,
                       List<Map<String, Object>> taints, Map<String, String> capacity, Map<String, String> allocatable) {
    }

    /**
     * What the agent wants: key → value per kind; taints keyed {@code key:effect}. A null kind (switched off) is left
     * as it is on the node, its tracking annotation included: a policy that no longer allows taints must not see a
     * patch that removes them.
     */
    public record Desired(SortedMap<String, String> labels, SortedMap<String, String> annotations,
                          SortedMap<String, String> taints, SortedMap<String, String> extendedResources) {
        /** Labels; the other kinds left alone. */
        public static Desired labels(SortedMap<String, String> labels) {
            return new Desired(labels, null, null, null);
        }

        /** Nothing at all: every owned output removed (prune). */
        public static Desired nothing() {
            return new Desired(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        }
    }

    /** The patch of the node object and the patch of its status subresource; either may be empty. */
    public record Plan(List<Op> node, List<Op> status) {
        public boolean isEmpty() {
            return node.isEmpty() && status.isEmpty();
        }
    }

    private NodePatch() {
    }

    /** Labels only: the operations, in order, or an empty list when the node is already right. */
    public static List<Op> compute(Map<String, String> labels, Map<String, String> annotations, String resourceVersion,
                                   SortedMap<String, String> desired) {
        return plan(new Node(labels, annotations, resourceVersion, null, null, null), Desired.labels(desired)).node();
    }

    public static Plan plan(Node node, Desired desired) {
        Map<String, String> labels = node.labels() == null ? Map.of() : node.labels();
        Map<String, String> annotations = node.annotations() == null ? Map.of() : node.annotations();

        List<Op> labelOps = new ArrayList<>();
        diff(labels, owned(annotations, MANAGED_ANNOTATION), desired.labels(), "/metadata/labels/", labelOps);
        Map<String, String> featureAnnotations = new TreeMap<>(annotations);
        TRACKING.forEach(featureAnnotations::remove);
        List<Op> annotationOps = new ArrayList<>();
        if (desired.annotations() != null) {
            diff(featureAnnotations, owned(annotations, MANAGED_ANNOTATIONS), desired.annotations(), "/metadata/annotations/",
                    annotationOps);
        }
        List<Map<String, Object>> taints = desired.taints() == null ? null
                : taints(node.taints(), owned(annotations, MANAGED_TAINTS), desired.taints());
        boolean taintsChange = taints != null && !taints.equals(node.taints() == null ? List.of() : node.taints());

        Map<String, SortedSet<String>> lists = new LinkedHashMap<>();
        lists.put(MANAGED_ANNOTATION, new TreeSet<>(desired.labels().keySet()));
        if (desired.annotations() != null) {
            lists.put(MANAGED_ANNOTATIONS, new TreeSet<>(desired.annotations().keySet()));
        }
        if (desired.taints() != null) {
            lists.put(MANAGED_TAINTS, new TreeSet<>(desired.taints().keySet()));
        }
        if (desired.extendedResources() != null) {
            SortedSet<String> ers = new TreeSet<>(desired.extendedResources().keySet());
            Map<String, String> capacity = node.capacity() == null ? Map.of() : node.capacity();
            for (String k : owned(annotations, MANAGED_EXTENDED_RESOURCES)) {
                if (capacity.containsKey(k)) {
                    ers.add(k); // still to be removed by the status patch: stays the agent's until then
                }
            }
            lists.put(MANAGED_EXTENDED_RESOURCES, ers);
        }
        List<Op> trackingOps = new ArrayList<>();
        lists.forEach((annotation, keys) -> {
            String wanted = String.join(",", keys);
            String have = annotations.get(annotation);
            if (keys.isEmpty()) {
                if (have != null) {
                    trackingOps.add(new Op("remove", annotationPath(annotation), null));
                }
            } else if (!wanted.equals(have)) {
                trackingOps.add(new Op(have == null ? "add" : "replace", annotationPath(annotation), wanted));
            }
        });

        List<Op> ops = new ArrayList<>();
        if (!labelOps.isEmpty() || !annotationOps.isEmpty() || !trackingOps.isEmpty() || taintsChange) {
            boolean createLabels = labels.isEmpty() && labelOps.stream().anyMatch(op -> op.op().equals("add"));
            boolean createAnnotations = annotations.isEmpty() && (!annotationOps.isEmpty() || !trackingOps.isEmpty());
            if ((createLabels || createAnnotations || taintsChange) && node.resourceVersion() != null
                    && !node.resourceVersion().isEmpty()) {
                ops.add(new Op("replace", "/metadata/resourceVersion", node.resourceVersion()));
            }
            if (createLabels) {
                ops.add(new Op("add", "/metadata/labels", Collections.emptyMap()));
            }
            ops.addAll(labelOps);
            if (createAnnotations) {
                ops.add(new Op("add", "/metadata/annotations", Collections.emptyMap()));
            }
            ops.addAll(annotationOps);
            ops.addAll(trackingOps);
            if (taintsChange) {
                ops.add(taints.isEmpty() ? new Op("remove", "/spec/taints", null) : new Op("add", "/spec/taints", taints));
            }
        }
        return new Plan(List.copyOf(ops), desired.extendedResources() == null ? List.of()
                : status(node, annotations, desired.extendedResources()));
    }

    /** Adds, changes (owned only; an unowned one is only claimed) and removes (owned only) entries of a string map. */
    private static void diff(Map<String, String> current, SortedSet<String> owned, SortedMap<String, String> desired,
                             String base, List<Op> out) {
        for (Map.Entry<String, String> e : desired.entrySet()) {
            String have = current.get(e.getKey());
            if (have == null && !current.containsKey(e.getKey())) {
                out.add(new Op("add", base + escape(e.getKey()), e.getValue()));
            } else if (!e.getValue().equals(have) && owned.contains(e.getKey())) {
                out.add(new Op("replace", base + escape(e.getKey()), e.getValue()));
            }
        }
        for (String key : owned) {
            if (!desired.containsKey(key) && current.containsKey(key)) {
                out.add(new Op("remove", base + escape(key), null));
            }
        }
    }

    /**
     * The taint list as it should be: other components' taints untouched and in place, owned ones no longer desired
     * removed, owned ones with another value changed in place, new ones appended.
     */
    private static List<Map<String, Object>> taints(List<Map<String, Object>> current, SortedSet<String> owned,
                                                    SortedMap<String, String> desired) {
        List<Map<String, Object>> out = new ArrayList<>();
        SortedSet<String> present = new TreeSet<>();
        for (Map<String, Object> t : current == null ? List.<Map<String, Object>>of() : current) {
            String id = taintId(t);
            present.add(id);
            String want = desired.get(id);
            if (owned.contains(id) && want == null) {
                continue;
            }
            if (owned.contains(id) && !want.equals(stringOrEmpty(t.get("value")))) {
                Map<String, Object> changed = new LinkedHashMap<>(t);
                if (want.isEmpty()) {
                    changed.remove("value");
                } else {
                    changed.put("value", want);
                }
                out.add(changed);
                continue;
            }
            out.add(t);
        }
        desired.forEach((id, value) -> {
            if (!present.contains(id)) {
                int colon = id.lastIndexOf(':');
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("key", id.substring(0, colon));
                if (!value.isEmpty()) {
                    t.put("value", value);
                }
                t.put("effect", id.substring(colon + 1));
                out.add(t);
            }
        });
        return out;
    }

    /**
     * The status patch for extended resources: capacity and allocatable added, changed (owned, numerically different:
     * the API server writes quantities canonically) or removed (owned, no longer desired). Computed on a node whose
     * tracking annotation already lists what is added: the metadata patch goes first.
     */
    private static List<Op> status(Node node, Map<String, String> annotations, SortedMap<String, String> desired) {
        SortedSet<String> owned = owned(annotations, MANAGED_EXTENDED_RESOURCES);
        Map<String, String> capacity = node.capacity() == null ? Map.of() : node.capacity();
        Map<String, String> allocatable = node.allocatable() == null ? Map.of() : node.allocatable();
        List<Op> ops = new ArrayList<>();
        for (Map.Entry<String, String> e : desired.entrySet()) {
            String k = e.getKey();
            if (!owned.contains(k)) {
                continue; // the metadata patch claims it first
            }
            String have = capacity.get(k);
            if (have == null) {
                ops.add(new Op("add", "/status/capacity/" + escape(k), e.getValue()));
                ops.add(new Op("add", "/status/allocatable/" + escape(k), e.getValue()));
            } else if (!sameAmount(have, e.getValue()) || !sameAmount(allocatable.get(k), e.getValue())) {
                ops.add(new Op("replace", "/status/capacity/" + escape(k), e.getValue()));
                ops.add(new Op(allocatable.containsKey(k) ? "replace" : "add", "/status/allocatable/" + escape(k),
                        e.getValue()));
            }
        }
        for (String k : owned) {
            if (!desired.containsKey(k) && capacity.containsKey(k)) {
                ops.add(new Op("remove", "/status/capacity/" + escape(k), null));
                if (allocatable.containsKey(k)) {
                    ops.add(new Op("remove", "/status/allocatable/" + escape(k), null));
                }
            }
        }
        if (!ops.isEmpty() && node.capacity() == null) {
            ops.add(0, new Op("add", "/status/capacity", Collections.emptyMap()));
        }
        if (!ops.isEmpty() && node.allocatable() == null && ops.stream().anyMatch(o -> o.path().startsWith("/status/allocatable/"))) {
            ops.add(node.capacity() == null ? 1 : 0, new Op("add", "/status/allocatable", Collections.emptyMap()));
        }
        return List.copyOf(ops);
    }

    private static boolean sameAmount(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        BigInteger x = Quantities.whole(a);
        return x != null ? x.equals(Quantities.whole(b)) : a.equals(b);
    }

    /** A taint's identity on a node: {@code key:effect}. */
    static String taintId(Map<String, Object> taint) {
        return stringOrEmpty(taint.get("key")) + ":" + stringOrEmpty(taint.get("effect"));
    }

    private static String stringOrEmpty(Object o) {
        return o == null ? "" : o.toString();
    }

    /** The keys listed in the label ownership annotation, sorted; empty when there is none. */
    public static SortedSet<String> owned(Map<String, String> annotations) {
        return owned(annotations, MANAGED_ANNOTATION);
    }

    /** The keys listed in tracking annotation {@code annotation}, sorted; empty when there is none. */
    public static SortedSet<String> owned(Map<String, String> annotations, String annotation) {
        SortedSet<String> out = new TreeSet<>();
        String value = annotations == null ? null : annotations.get(annotation);
        if (value != null) {
            Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
        }
        return out;
    }

    static String annotationPath(String annotation) {
        return "/metadata/annotations/" + escape(annotation);
    }

    /** JSON Pointer escaping (RFC 6901): {@code ~} → {@code ~0} first, then {@code /} → {@code ~1}. */
    public static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
