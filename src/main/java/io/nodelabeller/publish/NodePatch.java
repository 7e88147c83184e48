package io.nodelabeller.publish;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The JSON Patch (RFC 6902) that brings a Node's labels from what they are to what is desired, touching only
 * the labels this agent owns. Pure: no I/O, so every rule here is checked by the property test.
 *
 * <p>Rules:
 * <ul>
 * <li>Owned keys are those listed in the annotation {@value #MANAGED_ANNOTATION} (comma-separated).</li>
 * <li>A desired key is added, or replaced when it is owned. A label that exists with another value but is not
 *     owned is taken over (as NFD master does) in two steps: this patch only lists the key as owned, the next
 *     one, computed on the result, sets the value. So a patch never changes a label that was not listed as owned
 *     before it, which is what the admission policy enforces.</li>
 * <li>An owned key that is no longer desired is removed; a key that is not owned is never changed.</li>
 * <li>The annotation is rewritten (sorted keys) whenever the owned set changes, and removed once nothing
 *     is owned.</li>
 * <li>The API server keeps no empty map, and {@code add /metadata/labels/x} fails when {@code labels} is
 *     absent, so a missing map is created first. Creating it ({@code add} of a whole map) would wipe a map
 *     that appeared since the node was read, so such a patch also pins {@code metadata.resourceVersion}:
 *     the API server then rejects it with 409 when the node changed in between.</li>
 * </ul>
 */
public final class NodePatch {

    public static final String MANAGED_ANNOTATION = "node-labeller.io/managed-labels";

    /** One JSON Patch operation; {@code value} is null for {@code remove}. */
    public record Op(String op, String path, Object value) {
        public Op {
            Objects.requireNonNull(op);
            Objects.requireNonNull(path);
        }
    }

    private NodePatch() {
    }

    /**
     * The operations, in order, or an empty list when the node is already right.
     *
     * @param labels          the node's labels; null or empty when it has none
     * @param annotations     the node's annotations; null or empty when it has none
     * @param resourceVersion the node's resourceVersion as read
     * @param desired         key → value wanted; keys must be valid label keys
     */
    public static List<Op> compute(Map<String, String> labels, Map<String, String> annotations, String resourceVersion,
                                   SortedMap<String, String> desired) {
        Map<String, String> current = labels == null ? Map.of() : labels;
        SortedSet<String> owned = owned(annotations);

        List<Op> labelOps = new ArrayList<>();
        for (Map.Entry<String, String> e : desired.entrySet()) {
            String have = current.get(e.getKey());
            if (have == null && !current.containsKey(e.getKey())) {
                labelOps.add(new Op("add", labelPath(e.getKey()), e.getValue()));
            } else if (!e.getValue().equals(have) && owned.contains(e.getKey())) {
                labelOps.add(new Op("replace", labelPath(e.getKey()), e.getValue()));
            }
        }
        for (String key : owned) {
            if (!desired.containsKey(key) && current.containsKey(key)) {
                labelOps.add(new Op("remove", labelPath(key), null));
            }
        }

        String wanted = String.join(",", desired.keySet());
        String have = annotations == null ? null : annotations.get(MANAGED_ANNOTATION);
        Op annotationOp = null;
        if (desired.isEmpty()) {
            if (have != null) {
                annotationOp = new Op("remove", annotationPath(), null);
            }
        } else if (have == null) {
            annotationOp = new Op("add", annotationPath(), wanted);
        } else if (!have.equals(wanted)) {
            annotationOp = new Op("replace", annotationPath(), wanted);
        }

        if (labelOps.isEmpty() && annotationOp == null) {
            return List.of();
        }
        List<Op> ops = new ArrayList<>();
        boolean createLabels = current.isEmpty() && labelOps.stream().anyMatch(op -> op.op().equals("add"));
        boolean createAnnotations = (annotations == null || annotations.isEmpty()) && annotationOp != null;
        if ((createLabels || createAnnotations) && resourceVersion != null && !resourceVersion.isEmpty()) {
            ops.add(new Op("replace", "/metadata/resourceVersion", resourceVersion));
        }
        if (createLabels) {
            ops.add(new Op("add", "/metadata/labels", Collections.emptyMap()));
        }
        ops.addAll(labelOps);
        if (createAnnotations) {
            ops.add(new Op("add", "/metadata/annotations", Collections.emptyMap()));
        }
        if (annotationOp != null) {
            ops.add(annotationOp);
        }
        return List.copyOf(ops);
    }

    /** The keys listed in the ownership annotation, sorted; empty when there is none. */
    public static SortedSet<String> owned(Map<String, String> annotations) {
        SortedSet<String> out = new TreeSet<>();
        String value = annotations == null ? null : annotations.get(MANAGED_ANNOTATION);
        if (value != null) {
            Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
        }
        return out;
    }

    static String labelPath(String key) {
        return "/metadata/labels/" + escape(key);
    }

    static String annotationPath() {
        return "/metadata/annotations/" + escape(MANAGED_ANNOTATION);
    }

    /** JSON Pointer escaping (RFC 6901): {@code ~} → {@code ~0} first, then {@code /} → {@code ~1}. */
    public static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
