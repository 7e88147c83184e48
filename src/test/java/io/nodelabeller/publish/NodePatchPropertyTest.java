package io.nodelabeller.publish;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random nodes (labels, ownership annotation, nfd-master's list, other annotations, absent or empty maps) and random
 * desired sets: the patches, applied with RFC 6902 semantics by an independent applier below, yield the desired labels
 * except those another writer holds and nfd-master does not hand over, which stay as they are and unlisted; they
 * never touch a key the agent neither owns nor wants, never claim one another install lists, list only keys the node
 * has after each patch, and a further computation finds nothing to do.
 */
class NodePatchPropertyTest {

    static final String[] PREFIXES = {"", "feature.node.kubernetes.io/", "nvidia.com/", "team.example.com/", "we~ird/"};
    static final String[] NAMES = {"a", "b", "gpu.count", "cpu-model.id", "x_y", "z"};
    static final String[] VALUES = {"", "true", "1", "Intel", "NVIDIA-A100"};
    static final String ANNOTATION = NodePatch.MANAGED_ANNOTATION;
    /** Another install's tracking annotation on the same node. */
    static final String OTHER_INSTALL = "team-b.node-labeller.io/managed-labels";

    @Test
    void patchesReachTheDesiredStateAndTouchOnlyOwnedOrDesiredKeys() {
        Random random = new Random(20261122L);
        for (int i = 0; i < 5000; i++) {
            check(random, i);
        }
    }

    private static void check(Random random, int caseNo) {
        Map<String, String> labels = randomMap(random, random.nextInt(4) == 0 ? 0 : random.nextInt(10));
        if (labels.isEmpty() && random.nextBoolean()) {
            labels = null; // absent map (the API server stores no empty map)
        }
        Set<String> ownedKeys = new TreeSet<>();
        int owned = random.nextInt(6);
        for (int i = 0; i < owned; i++) {
            // owned keys are mostly on the node, sometimes not (removed by someone else)
            if (labels != null && !labels.isEmpty() && random.nextInt(4) != 0) {
                ownedKeys.add(new ArrayList<>(labels.keySet()).get(random.nextInt(labels.size())));
            } else {
                ownedKeys.add(randomKey(random));
            }
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        if (random.nextBoolean()) {
            annotations.put("note.example.com/comment", "café é");
        }
        if (labels != null && !labels.isEmpty() && random.nextBoolean()) {
            // nfd-master's own list (keys in its default namespace without the prefix), as while NFD still runs
            List<String> nfd = new ArrayList<>();
            for (String k : labels.keySet()) {
                if (random.nextBoolean()) {
                    nfd.add(k.startsWith("feature.node.kubernetes.io/") ? k.substring("feature.node.kubernetes.io/".length()) : k);
                }
            }
            annotations.put(NodePatch.NFD_LABELS, String.join(",", new TreeSet<>(nfd)));
        }
        if (random.nextInt(3) == 0) {
            // another install's list (its own tracking annotation): some keys on the node, some gone
            Set<String> theirs = new TreeSet<>();
            for (int i = random.nextInt(4); i > 0; i--) {
                theirs.add(labels != null && !labels.isEmpty() && random.nextBoolean()
                        ? new ArrayList<>(labels.keySet()).get(random.nextInt(labels.size())) : randomKey(random));
            }
            theirs.removeAll(ownedKeys); // two installs never list one key (the admission policy sees to it)
            annotations.put(OTHER_INSTALL, String.join(",", theirs));
        }
        if (!ownedKeys.isEmpty() || random.nextInt(5) == 0) {
            // sloppy formatting on purpose: spaces, empty entries, any order
            List<String> parts = new ArrayList<>(ownedKeys);
            Collections.shuffle(parts, random);
            String sep = random.nextBoolean() ? "," : " , ";
            annotations.put(ANNOTATION, String.join(sep, parts) + (random.nextBoolean() ? "," : ""));
        }
        Map<String, String> annotationsIn = annotations.isEmpty() && random.nextBoolean() ? null : annotations;
        SortedMap<String, String> desired = new TreeMap<>(randomMap(random, random.nextInt(8)));
        if (labels != null && !labels.isEmpty() && random.nextBoolean()) {
            // a desired key that is already there, owned or not, same or other value
            String k = new ArrayList<>(labels.keySet()).get(random.nextInt(labels.size()));
            desired.put(k, random.nextBoolean() ? labels.get(k) : VALUES[random.nextInt(VALUES.length)]);
        }

        String context = "case " + caseNo + ": labels=" + labels + " annotations=" + annotationsIn + " desired=" + desired;
        // the API server stores no empty map: an empty map as the client shows it is an absent one
        Map<String, Object> metadata = new HashMap<>();
        if (labels != null && !labels.isEmpty()) {
            metadata.put("labels", new HashMap<>(labels));
        }
        if (annotationsIn != null && !annotationsIn.isEmpty()) {
            metadata.put("annotations", new HashMap<>(annotationsIn));
        }
        metadata.put("resourceVersion", "42");
        // one patch, or two when a label nfd-master hands over is taken over (claimed first, then changed); then nothing
        Map<String, String> labelsIn = labels == null ? Map.of() : labels;
        Set<String> ownedIn = NodePatch.owned(annotationsIn);
        Set<String> handed = NodePatch.handedOver(annotationsIn, NodePatch.NFD_LABELS);
        // another writer's: on the node, not owned, not handed over by nfd-master, or another install's; never taken
        Set<String> theirs = NodePatch.owned(annotationsIn, OTHER_INSTALL);
        Set<String> others = new TreeSet<>(labelsIn.keySet());
        others.removeIf(k -> ownedIn.contains(k) || (handed.contains(k) && !theirs.contains(k)));
        others.addAll(theirs);
        List<NodePatch.Op> first = step(metadata, desired, context + " (first patch)");
        List<NodePatch.Op> second = step(metadata, desired, context + " (second patch)");
        boolean takesOver = desired.entrySet().stream().anyMatch(e -> labelsIn.containsKey(e.getKey())
                && !labelsIn.get(e.getKey()).equals(e.getValue()) && !ownedIn.contains(e.getKey()) && handed.contains(e.getKey())
                && !theirs.contains(e.getKey()));
        assertEquals(takesOver, !second.isEmpty(), context + ": a second patch exactly when a handed-over label is taken over");
        assertEquals(first.isEmpty(), first.isEmpty() && second.isEmpty());
        assertEquals(List.of(), step(metadata, desired, context + " (third)"), context + ": not converged after two patches");

        Set<String> before = labelsIn.keySet();
        @SuppressWarnings("unchecked")
        Map<String, String> after = (Map<String, String>) metadata.getOrDefault("labels", Map.of());
        for (String k : before) {
            if ((!desired.containsKey(k) && !ownedIn.contains(k)) || (others.contains(k) && !ownedIn.contains(k))) {
                assertEquals(labels.get(k), after.get(k), context + ": another writer's " + k + " changed");
            } else if (!desired.containsKey(k)) {
                assertFalse(after.containsKey(k), context + ": owned " + k + " not removed");
            }
        }
        desired.forEach((k, v) -> {
            if (!others.contains(k)) {
                assertEquals(v, after.get(k), context + ": desired " + k);
            }
        });
        assertEquals(annotationsIn == null ? null : annotationsIn.get(OTHER_INSTALL),
                ((Map<?, ?>) metadata.getOrDefault("annotations", Map.of())).get(OTHER_INSTALL), context + ": another install's list");
        for (String k : after.keySet()) {
            assertTrue(desired.containsKey(k) || before.contains(k), context + ": unexpected " + k);
        }

        @SuppressWarnings("unchecked")
        Map<String, String> annotationsAfter = (Map<String, String>) metadata.getOrDefault("annotations", Map.of());
        Set<String> owns = new TreeSet<>(desired.keySet());
        owns.removeAll(others);
        if (owns.isEmpty()) {
            assertNull(annotationsAfter.get(ANNOTATION), context);
        } else {
            assertEquals(String.join(",", owns), annotationsAfter.get(ANNOTATION), context);
        }
        assertEquals(annotationsIn == null ? null : annotationsIn.get(NodePatch.NFD_LABELS), annotationsAfter.get(NodePatch.NFD_LABELS),
                context + ": nfd-master's list is its own");
        if (annotationsIn != null && annotationsIn.containsKey("note.example.com/comment")) {
            assertEquals("café é", annotationsAfter.get("note.example.com/comment"), context);
        }
    }

    /**
     * Computes a patch on {@code metadata}, applies it, and checks what every single patch must satisfy: it touches
     * only owned or desired keys; it changes or removes only labels listed as owned before it, adds only labels
     * listed as owned after it, and newly lists only a label it creates in this patch or one nfd-master lists as its
     * own (the admission policy's ownership rules, so no patch of the agent is ever denied); a map is created exactly
     * when the resourceVersion is pinned.
     */
    @SuppressWarnings("unchecked")
    static List<NodePatch.Op> step(Map<String, Object> metadata, SortedMap<String, String> desired, String context) {
        Map<String, String> labelsBefore = new HashMap<>((Map<String, String>) metadata.getOrDefault("labels", Map.of()));
        Map<String, String> annotationsBefore = (Map<String, String>) metadata.get("annotations");
        Set<String> ownedBefore = NodePatch.owned(annotationsBefore);
        String rv = (String) metadata.get("resourceVersion");
        List<NodePatch.Op> ops = NodePatch.compute((Map<String, String>) metadata.get("labels"), annotationsBefore, rv, desired);
        apply(metadata, ops, context);
        metadata.put("resourceVersion", String.valueOf(Integer.parseInt(rv) + 1));
        metadata.values().removeIf(v -> v instanceof Map<?, ?> m && m.isEmpty()); // the API server keeps no empty map

        for (NodePatch.Op op : ops) {
            if (op.path().startsWith("/metadata/labels/")) {
                String key = unescape(op.path().substring("/metadata/labels/".length()));
                assertTrue(ownedBefore.contains(key) || desired.containsKey(key),
                        context + ": touches " + key + " which is neither owned nor desired");
            }
        }
        Map<String, String> labelsAfter = (Map<String, String>) metadata.getOrDefault("labels", Map.of());
        Set<String> ownedAfter = NodePatch.owned((Map<String, String>) metadata.get("annotations"));
        for (String k : labelsBefore.keySet()) {
            if (!labelsBefore.get(k).equals(labelsAfter.get(k))) {
                assertTrue(ownedBefore.contains(k), context + ": changes or removes " + k + ", not listed as owned before");
            }
        }
        for (String k : labelsAfter.keySet()) {
            if (!labelsBefore.containsKey(k)) {
                assertTrue(ownedAfter.contains(k), context + ": adds " + k + ", not listed as owned after");
            }
        }
        Set<String> handed = NodePatch.handedOver(annotationsBefore, NodePatch.NFD_LABELS);
        Set<String> theirs = NodePatch.owned(annotationsBefore, OTHER_INSTALL);
        for (String k : ownedAfter) {
            if (!ownedBefore.contains(k)) {
                boolean created = !labelsBefore.containsKey(k) && labelsAfter.containsKey(k);
                assertTrue(created || (labelsBefore.containsKey(k) && handed.contains(k)),
                        context + ": lists " + k + ", neither created in this patch nor handed over by nfd-master");
                assertFalse(theirs.contains(k), context + ": lists " + k + ", which another install lists");
            }
            assertTrue(labelsAfter.containsKey(k), context + ": lists " + k + ", which the node does not have after the patch");
        }
        boolean pinned = ops.stream().anyMatch(op -> op.path().equals("/metadata/resourceVersion"));
        boolean createsMap = ops.stream().anyMatch(op -> op.path().equals("/metadata/labels") || op.path().equals("/metadata/annotations"));
        assertEquals(createsMap, pinned, context + ": a map is created exactly when the resourceVersion is pinned");
        return ops;
    }

    /** RFC 6902 add/replace/remove on the metadata object; fails like an API server would (422). */
    @SuppressWarnings("unchecked")
    static void apply(Map<String, Object> metadata, List<NodePatch.Op> ops, String context) {
        for (NodePatch.Op op : ops) {
            String[] parts = op.path().split("/", -1);
            if (parts.length < 3 || !parts[0].isEmpty() || !parts[1].equals("metadata")) {
                fail(context + ": bad path " + op.path());
            }
            Map<String, Object> target = metadata;
            String member = unescape(parts[2]);
            if (parts.length == 4) {
                Object parent = metadata.get(member);
                if (!(parent instanceof Map)) {
                    fail(context + ": " + op + " on a missing map (the API server answers 422)");
                }
                target = (Map<String, Object>) parent;
                member = unescape(parts[3]);
            } else if (parts.length > 4) {
                fail(context + ": bad path " + op.path());
            }
            switch (op.op()) {
                case "add" -> target.put(member, op.value() instanceof Map ? new HashMap<>((Map<String, Object>) op.value()) : op.value());
                case "replace", "remove" -> {
                    if (!target.containsKey(member)) {
                        fail(context + ": " + op + " of a missing member");
                    }
                    if (op.op().equals("replace")) {
                        target.put(member, op.value());
                    } else {
                        target.remove(member);
                    }
                }
                default -> fail(context + ": unexpected op " + op);
            }
        }
    }

    static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }

    static String randomKey(Random random) {
        return PREFIXES[random.nextInt(PREFIXES.length)] + NAMES[random.nextInt(NAMES.length)];
    }

    static Map<String, String> randomMap(Random random, int n) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(randomKey(random), VALUES[random.nextInt(VALUES.length)]);
        }
        return m;
    }

    @Test
    void escapesTildeBeforeSlash() {
        assertEquals("a~0b~1c", NodePatch.escape("a~b/c"));
        assertEquals("~01", NodePatch.escape("~1"));
        assertEquals("/metadata/annotations/node-labeller.io~1managed-labels", NodePatch.annotationPath(NodePatch.MANAGED_ANNOTATION));
    }

    @Test
    void nothingToDoGivesNoOperations() {
        Map<String, String> labels = Map.of("kubernetes.io/hostname", "n", "nvidia.com/gpu.present", "true");
        Map<String, String> annotations = Map.of(ANNOTATION, "nvidia.com/gpu.present");
        assertEquals(List.of(), NodePatch.compute(labels, annotations, "7", new TreeMap<>(Map.of("nvidia.com/gpu.present", "true"))));
        assertEquals(List.of(), NodePatch.compute(null, null, "7", new TreeMap<>()));
    }
}
