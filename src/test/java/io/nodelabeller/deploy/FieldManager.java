package io.nodelabeller.deploy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What kube-apiserver's field manager does to a Node's {@code metadata.managedFields} when a client updates it with a
 * JSON patch, before admission sees the result: kubernetes
 * {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go} ({@code jsonPatcher.applyPatchToCurrentObject}
 * calls {@code fieldManager.UpdateNoErrors} on the patched object, and admission runs after), and the update itself
 * as structured-merge-diff computes it ({@code sigs.k8s.io/structured-merge-diff/v4/merge/update.go},
 * {@code Updater.update} / {@code Updater.Update}): the fields the write added or modified are taken from every other
 * manager, the fields it removed are dropped from every manager, the writer's own entry (manager, operation
 * {@code Update}, subresource, apiVersion) gets what it added and modified, and an entry left with no field is dropped.
 * Managers are matched as {@code BuildManagerIdentifier} (managedfields/internal/managedfields.go) matches them.
 *
 * <p>Only the writes node-labeller makes are modelled: keys of {@code metadata.labels} and {@code metadata.annotations},
 * {@code spec.taints} (an atomic list: owned whole) and keys of {@code status.capacity} and {@code status.allocatable};
 * a write that changes anything else fails the test that makes it. Field sets are written as {@code fieldsV1} writes
 * them: {@code f:<name>} per field, {@code "."} for a map or list that a manager owns itself besides some of its fields.
 */
final class FieldManager {

    /** The time the model stamps on the writer's entry. */
    static final String NOW = "2026-11-27T12:00:00Z";

    private FieldManager() {
    }

    /** {@code after} with the managedFields the field manager records for {@code manager}'s update of {@code before}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> update(Map<String, Object> before, Map<String, Object> after, String manager, String subresource) {
        Set<List<String>> added = new LinkedHashSet<>();
        Set<List<String>> modified = new LinkedHashSet<>();
        Set<List<String>> removed = new LinkedHashSet<>();
        compareMap(before, after, List.of("metadata", "labels"), added, modified, removed);
        compareMap(before, after, List.of("metadata", "annotations"), added, modified, removed);
        compareMap(before, after, List.of("status", "capacity"), added, modified, removed);
        compareMap(before, after, List.of("status", "allocatable"), added, modified, removed);
        Object oldTaints = at(before, List.of("spec", "taints"));
        Object newTaints = at(after, List.of("spec", "taints"));
        List<String> taints = List.of("f:spec", "f:taints");
        if (oldTaints == null && newTaints != null) {
            added.add(taints);
        } else if (oldTaints != null && newTaints == null) {
            removed.add(taints);
        } else if (!Objects.equals(oldTaints, newTaints)) {
            modified.add(taints);
        }
        assertOnlyModelledChanges(before, after);

        Map<String, Object> out = AdmissionPolicyTest.copy(after);
        List<Map<String, Object>> entries = new ArrayList<>();
        Object old = ((Map<String, Object>) before.get("metadata")).get("managedFields");
        if (old instanceof List<?> list) {
            list.forEach(e -> entries.add(new LinkedHashMap<>((Map<String, Object>) e)));
        }
        Map<String, Object> mine = null;
        for (Map<String, Object> e : entries) {
            if (manager.equals(e.get("manager")) && "Update".equals(e.get("operation")) && "v1".equals(e.get("apiVersion"))
                    && Objects.equals(subresource, e.get("subresource"))) {
                mine = e;
            }
        }
        for (Map<String, Object> e : entries) {
            Set<List<String>> fields = flatten((Map<String, Object>) e.getOrDefault("fieldsV1", Map.of()));
            fields.removeAll(removed);
            if (e != mine) {
                fields.removeAll(added);
                fields.removeAll(modified);
            }
            e.put("fieldsV1", nest(fields));
        }
        if (mine == null && !(added.isEmpty() && modified.isEmpty())) {
            mine = new LinkedHashMap<>();
            mine.put("manager", manager);
            mine.put("operation", "Update");
            mine.put("apiVersion", "v1");
            if (subresource != null) {
                mine.put("subresource", subresource);
            }
            mine.put("fieldsType", "FieldsV1");
            mine.put("fieldsV1", Map.of());
            entries.add(mine);
        }
        if (mine != null) {
            Set<List<String>> fields = flatten((Map<String, Object>) mine.get("fieldsV1"));
            fields.addAll(added);
            fields.addAll(modified);
            if (!added.isEmpty() || !modified.isEmpty()) {
                mine.put("time", NOW);
            }
            mine.put("fieldsV1", nest(fields));
        }
        entries.removeIf(e -> ((Map<?, ?>) e.get("fieldsV1")).isEmpty());
        Map<String, Object> meta = (Map<String, Object>) out.get("metadata");
        if (entries.isEmpty()) {
            meta.remove("managedFields");
        } else {
            meta.put("managedFields", entries);
        }
        return out;
    }

    /** Added, modified and removed keys of the map at {@code path}, and the map itself when it appears or goes. */
    private static void compareMap(Map<String, Object> before, Map<String, Object> after, List<String> path,
                                   Set<List<String>> added, Set<List<String>> modified, Set<List<String>> removed) {
        Map<?, ?> o = (Map<?, ?>) at(before, path);
        Map<?, ?> n = (Map<?, ?>) at(after, path);
        List<String> self = path.stream().map(p -> "f:" + p).toList();
        if (o == null && n != null) {
            added.add(self);
        }
        if (o != null && n == null) {
            removed.add(self);
        }
        Map<?, ?> oo = o == null ? Map.of() : o;
        Map<?, ?> nn = n == null ? Map.of() : n;
        for (Object k : nn.keySet()) {
            List<String> field = new ArrayList<>(self);
            field.add("f:" + k);
            if (!oo.containsKey(k)) {
                added.add(field);
            } else if (!Objects.equals(oo.get(k), nn.get(k))) {
                modified.add(field);
            }
        }
        for (Object k : oo.keySet()) {
            if (!nn.containsKey(k)) {
                List<String> field = new ArrayList<>(self);
                field.add("f:" + k);
                removed.add(field);
            }
        }
    }

    /** The write changed nothing the model does not know (the agent's patches never do). */
    @SuppressWarnings("unchecked")
    private static void assertOnlyModelledChanges(Map<String, Object> before, Map<String, Object> after) {
        Map<String, Object> b = strip(before);
        Map<String, Object> a = strip(after);
        if (!b.equals(a)) {
            throw new AssertionError("the field manager model knows labels, annotations, taints, capacity and allocatable;"
                    + " this write changed more: " + b + " -> " + a);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> strip(Map<String, Object> node) {
        Map<String, Object> n = AdmissionPolicyTest.copy(node);
        Map<String, Object> meta = (Map<String, Object>) n.get("metadata");
        for (String k : List.of("labels", "annotations", "managedFields", "resourceVersion")) {
            meta.remove(k);
        }
        if (n.get("spec") instanceof Map<?, ?> spec) {
            ((Map<String, Object>) spec).remove("taints");
        }
        if (n.get("status") instanceof Map<?, ?> status) {
            ((Map<String, Object>) status).remove("capacity");
            ((Map<String, Object>) status).remove("allocatable");
        }
        return n;
    }

    private static Object at(Map<String, Object> node, List<String> path) {
        Object o = node;
        for (String step : path) {
            if (!(o instanceof Map<?, ?> m)) {
                return null;
            }
            o = m.get(step);
        }
        return o;
    }

    /** The fields of a fieldsV1 set: each a path of {@code f:} / {@code k:} / {@code v:} steps. */
    @SuppressWarnings("unchecked")
    static Set<List<String>> flatten(Map<String, Object> fieldsV1) {
        Set<List<String>> out = new LinkedHashSet<>();
        flatten(fieldsV1, new ArrayList<>(), out);
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(Map<String, Object> set, List<String> prefix, Set<List<String>> out) {
        for (Map.Entry<String, Object> e : set.entrySet()) {
            if (e.getKey().equals(".")) {
                out.add(List.copyOf(prefix));
                continue;
            }
            List<String> path = new ArrayList<>(prefix);
            path.add(e.getKey());
            Map<String, Object> children = (Map<String, Object>) e.getValue();
            if (children.isEmpty()) {
                out.add(List.copyOf(path));
            } else {
                flatten(children, path, out);
            }
        }
    }

    /** {@code fields} as a fieldsV1 set. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> nest(Set<List<String>> fields) {
        Map<String, Object> root = new LinkedHashMap<>();
        for (List<String> path : fields) {
            Map<String, Object> at = root;
            for (String step : path) {
                at = (Map<String, Object>) at.computeIfAbsent(step, k -> new LinkedHashMap<>());
            }
        }
        for (List<String> path : fields) { // a field that is also the parent of others owns itself: "."
            Map<String, Object> at = root;
            for (String step : path) {
                at = (Map<String, Object>) at.get(step);
            }
            if (!at.isEmpty() && !at.containsKey(".")) {
                at.put(".", new LinkedHashMap<>());
            }
        }
        return root;
    }
}
