package io.nodelabeller.publish;


import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 * <li>A desired key that is not on the node is added and listed in the same patch. One that is owned is replaced
 *     when its value differs.</li>
 * <li>A desired key that is on the node but not owned is taken over only when nfd-master hands it over: when its
 *     own tracking annotation lists it ({@value #NFD_LABELS}, {@value #NFD_ANNOTATIONS}, {@value #NFD_TAINTS},
 *     {@value #NFD_EXTENDED_RESOURCES}; GFD's labels arrive through NFD and are listed there too). It is taken over
 *     in two steps: this patch only lists the key, the next one, computed on the result, sets the value. Any other
 *     writer's key (an admin's label or taint, the GPU Operator's labels, a device plugin's resource) is left as it
 *     is, unlisted, and reported in {@link Plan#leftAlone()}. So a patch never changes anything that was not listed
 *     as owned before it, and lists an existing key only when nfd-master lists it: what the admission policy
 *     enforces.</li>
 * <li>An owned key that is no longer desired is removed and unlisted; a key that is not owned is never changed.</li>
 * <li>A tracking annotation is rewritten whenever its owned set changes, and removed once nothing is owned.</li>
 * <li>Extended resources are claimed, written, removed and unlisted in the status patch alone (the API server keeps
 *     a status update's metadata changes, and only resets its spec), so a resource is listed only in the patch
 *     that creates it.</li>
 * <li>The API server keeps no empty map, and {@code add /metadata/labels/x} fails when {@code labels} is absent, so a
 *     missing map is created first. Creating it ({@code add} of a whole map) would wipe a map that appeared since the
 *     node was read, so such a patch also pins {@code metadata.resourceVersion}: the API server then rejects it with
 *     409 when the node changed in between. The taint list is written whole, so a patch that changes it is pinned
 *     too (other components add and remove taints).</li>
 * </ul>
 */
public final class NodePatch {

    /** The default install's tracking annotations ({@link Bookkeeping#DEFAULT}). */
    public static final String MANAGED_ANNOTATION = Bookkeeping.DEFAULT.labels();
    public static final String MANAGED_ANNOTATIONS = Bookkeeping.DEFAULT.annotations();
    public static final String MANAGED_TAINTS = Bookkeeping.DEFAULT.taints();
    public static final String MANAGED_EXTENDED_RESOURCES = Bookkeeping.DEFAULT.extendedResources();

    /**
     * nfd-master's tracking annotations (pkg/nfd-master/nfd-master.go; default instance): sorted, comma-separated,
     * keys in feature.node.kubernetes.io/ without that prefix, taints as {@code key=value:Effect}.
     */
    public static final String NFD_LABELS = "nfd.node.kubernetes.io/feature-labels";
    public static final String NFD_ANNOTATIONS = "nfd.node.kubernetes.io/feature-annotations";
    public static final String NFD_TAINTS = "nfd.node.kubernetes.io/taints";
    public static final String NFD_EXTENDED_RESOURCES = "nfd.node.kubernetes.io/extended-resources";
    private static final String NFD_DEFAULT_PREFIX = "feature.node.kubernetes.io/";

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

    /**
     * The patch of the node object and the patch of its status subresource; either may be empty. {@code leftAlone}:
     * the desired outputs another writer has on the node with another value, which are not taken over ("label
     * feature.node.kubernetes.io/x", "taint key:effect", ...).
     */
    public record Plan(List<Op> node, List<Op> status, SortedSet<String> leftAlone) {
        public Plan {
            node = List.copyOf(node);
            status = List.copyOf(status);
            leftAlone = Collections.unmodifiableSortedSet(new TreeSet<>(leftAlone));
        }

        public Plan(List<Op> node, List<Op> status) {
            this(node, status, new TreeSet<>());
        }

        public boolean isEmpty() {
            return node.isEmpty() && status.isEmpty();
        }
    }

    private NodePatch() {
    }

    /** Labels only, the default install: the operations, in order, or an empty list when the node is already right. */
    public static List<Op> compute(Map<String, String> labels, Map<String, String> annotations, String resourceVersion,
                                   SortedMap<String, String> desired) {
        return plan(new Node(labels, annotations, resourceVersion, null, null, null), Desired.labels(desired)).node();
    }

    /** The default install's plan. */
    public static Plan plan(Node node, Desired desired) {
        return plan(node, desired, Bookkeeping.DEFAULT);
    }

    /**
     * The patches that bring {@code node} to {@code desired} for the install whose tracking annotations are {@code bk}.
     * Keys another install lists are never claimed (left alone, as another writer's). Every tracking annotation this
     * install has lists, after the patch, only keys the node then has: a kind switched off keeps its list, less what
     * is gone from the node.
     */
    public static Plan plan(Node node, Desired desired, Bookkeeping bk) {
        return plan(node, desired, bk, key -> true, false);
    }

    /**
     * As {@link #plan(Node, Desired, Bookkeeping)} for an agent that shares the install's tracking annotations with
     * another agent on the node ({@code shared}, {@link Part}): it adds, changes and removes only the labels
     * {@code keeps} accepts, and leaves the other owned labels listed as they are while the node has them. A shared
     * agent's patch that rewrites a tracking annotation is pinned to the node's resourceVersion, so that two agents
     * that list keys at the same time cannot drop each other's (the second gets 409, reads the node again and
     * retries).
     */
    public static Plan plan(Node node, Desired desired, Bookkeeping bk, java.util.function.Predicate<String> keeps,
                            boolean shared) {
        Map<String, String> labels = node.labels() == null ? Map.of() : node.labels();
        Map<String, String> annotations = node.annotations() == null ? Map.of() : node.annotations();
        Map<String, String> capacity = node.capacity() == null ? Map.of() : node.capacity();
        SortedSet<String> leftAlone = new TreeSet<>();

        Map<String, SortedSet<String>> lists = new LinkedHashMap<>();
        List<Op> labelOps = new ArrayList<>();
        SortedSet<String> ownedLabels = owned(annotations, bk.labels());
        SortedSet<String> othersPart = new TreeSet<>(ownedLabels);
        othersPart.removeIf(k -> keeps.test(k) || !labels.containsKey(k));
        ownedLabels.removeIf(k -> !keeps.test(k));
        SortedSet<String> listedLabels = diff(labels, ownedLabels, claimable(annotations, NFD_LABELS, bk, bk.labels()),
                bk.listedByOthers(annotations, bk.labels()), desired.labels(), "/metadata/labels/", labelOps, "label ", leftAlone);
        listedLabels.addAll(othersPart); // the other agent's part, listed as long as the node has it
        lists.put(bk.labels(), listedLabels);
        List<Op> annotationOps = new ArrayList<>();
        Map<String, String> featureAnnotations = new TreeMap<>(annotations);
        featureAnnotations.keySet().removeIf(Bookkeeping::isTracking);
        if (desired.annotations() != null) {
            lists.put(bk.annotations(), diff(featureAnnotations, owned(annotations, bk.annotations()),
                    claimable(annotations, NFD_ANNOTATIONS, bk, bk.annotations()), bk.listedByOthers(annotations, bk.annotations()),
                    desired.annotations(), "/metadata/annotations/", annotationOps, "annotation ", leftAlone));
        } else {
            lists.put(bk.annotations(), stillThere(annotations, bk.annotations(), featureAnnotations.keySet()));
        }
        List<Map<String, Object>> taints = null;
        if (desired.taints() != null) {
            SortedSet<String> ownedTaints = new TreeSet<>();
            Set<String> claimable = TaintList.handedOver(annotations);
            Set<String> others = bk.listedByOthers(annotations, bk.taints());
            claimable.removeAll(others);
            taints = TaintList.desired(node.taints(), owned(annotations, bk.taints()), claimable, others, desired.taints(), ownedTaints,
                    leftAlone);
            lists.put(bk.taints(), ownedTaints);
        } else {
            SortedSet<String> present = new TreeSet<>();
            (node.taints() == null ? List.<Map<String, Object>>of() : node.taints()).forEach(t -> present.add(TaintList.taintId(t)));
            lists.put(bk.taints(), stillThere(annotations, bk.taints(), present));
        }
        // extended resources are claimed and written by the status patch; here only what is gone is unlisted
        lists.put(bk.extendedResources(), stillThere(annotations, bk.extendedResources(), capacity.keySet()));
        boolean taintsChange = taints != null && !taints.equals(node.taints() == null ? List.of() : node.taints());
        List<Op> trackingOps = tracking(annotations, lists);

        List<Op> ops = new ArrayList<>();
        if (!labelOps.isEmpty() || !annotationOps.isEmpty() || !trackingOps.isEmpty() || taintsChange) {
            boolean createLabels = labels.isEmpty() && labelOps.stream().anyMatch(op -> op.op().equals("add"));
            boolean createAnnotations = annotations.isEmpty() && (!annotationOps.isEmpty() || !trackingOps.isEmpty());
            if ((createLabels || createAnnotations || taintsChange || (shared && !trackingOps.isEmpty())) && pinnable(node)) {
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
        List<Op> status = desired.extendedResources() == null ? List.of()
                : ExtendedResourcesPatch.ops(node, annotations, desired.extendedResources(), bk, leftAlone);
        return new Plan(ops, status, leftAlone);
    }

    /**
     * What nfd-master hands over in {@code nfdAnnotation} and no other install lists in its annotation of the kind of
     * {@code own}.
     */
    static Set<String> claimable(Map<String, String> annotations, String nfdAnnotation, Bookkeeping bk, String own) {
        Set<String> out = handedOver(annotations, nfdAnnotation);
        out.removeAll(bk.listedByOthers(annotations, own));
        return out;
    }

    /** The keys {@code annotation} lists that are still among {@code present}: a list whose keys are gone, shortened. */
    private static SortedSet<String> stillThere(Map<String, String> annotations, String annotation, Set<String> present) {
        SortedSet<String> out = owned(annotations, annotation);
        out.retainAll(present);
        return out;
    }

    static boolean pinnable(Node node) {
        return node.resourceVersion() != null && !node.resourceVersion().isEmpty();
    }

    /** The operations that bring each tracking annotation to its owned set (removed when empty). */
    static List<Op> tracking(Map<String, String> annotations, Map<String, SortedSet<String>> lists) {
        List<Op> ops = new ArrayList<>();
        lists.forEach((annotation, keys) -> {
            String wanted = String.join(",", keys);
            String have = annotations.get(annotation);
            if (keys.isEmpty()) {
                if (have != null) {
                    ops.add(new Op("remove", annotationPath(annotation), null));
                }
            } else if (!wanted.equals(have)) {
                ops.add(new Op(have == null ? "add" : "replace", annotationPath(annotation), wanted));
            }
        });
        return ops;
    }

    /**
     * Adds (and owns), changes (owned only), takes over (handed over by nfd-master: only owned here) and removes
     * (owned only) entries of a string map; returns the keys owned after this patch. A desired key another writer
     * has is left as it is, and named in {@code leftAlone} when its value differs.
     */
    private static SortedSet<String> diff(Map<String, String> current, SortedSet<String> owned, Set<String> handedOver,
                                          Set<String> othersList, SortedMap<String, String> desired, String base,
                                          List<Op> out, String kind, SortedSet<String> leftAlone) {
        SortedSet<String> owns = new TreeSet<>();
        for (Map.Entry<String, String> e : desired.entrySet()) {
            String have = current.get(e.getKey());
            if (othersList.contains(e.getKey()) && !owned.contains(e.getKey())) {
                if (!e.getValue().equals(have)) {
                    leftAlone.add(kind + e.getKey()); // another install's, even while it is not on the node
                }
            } else if (have == null && !current.containsKey(e.getKey())) {
                out.add(new Op("add", base + escape(e.getKey()), e.getValue()));
                owns.add(e.getKey());
            } else if (owned.contains(e.getKey())) {
                if (!e.getValue().equals(have)) {
                    out.add(new Op("replace", base + escape(e.getKey()), e.getValue()));
                }
                owns.add(e.getKey());
            } else if (handedOver.contains(e.getKey())) {
                owns.add(e.getKey()); // the value, when it differs, in the next patch
            } else if (!e.getValue().equals(have)) {
                leftAlone.add(kind + e.getKey());
            }
        }
        for (String key : owned) {
            if (!desired.containsKey(key) && current.containsKey(key)) {
                out.add(new Op("remove", base + escape(key), null));
            }
        }
        return owns;
    }

    /**
     * The keys nfd-master lists as its own in {@code annotation}, with the default prefix it leaves out put back
     * ({@code kernel-version.full} → {@code feature.node.kubernetes.io/kernel-version.full}).
     */
    public static Set<String> handedOver(Map<String, String> annotations, String annotation) {
        Set<String> out = new TreeSet<>();
        for (String k : owned(annotations, annotation)) {
            out.add(k.indexOf('/') < 0 ? NFD_DEFAULT_PREFIX + k : k);
        }
        return out;
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
