package io.nodelabeller.publish;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A node's taints ({@code spec.taints}) as {@link NodePatch} writes them: the list is written whole, so it is made
 * here from the node's, with other components' taints untouched and in place. A taint is identified by its key and
 * effect (a node has one per pair), as {@code key:effect}.
 */
final class TaintList {

    private TaintList() {
    }

    /**
     * The taint list as it should be: other components' taints untouched and in place, owned ones no longer desired
     * removed, owned ones with another value changed in place, new ones appended; {@code owns} gets the taints owned
     * after this patch.
     */
    static List<Map<String, Object>> desired(List<Map<String, Object>> current, SortedSet<String> owned,
                                             Set<String> handedOver, Set<String> othersList,
                                             SortedMap<String, String> desired, SortedSet<String> owns,
                                             SortedSet<String> leftAlone) {
        List<Map<String, Object>> out = new ArrayList<>();
        SortedSet<String> present = new TreeSet<>();
        for (Map<String, Object> t : current == null ? List.<Map<String, Object>>of() : current) {
            String id = taintId(t);
            present.add(id);
            String want = desired.get(id);
            if (want != null && (owned.contains(id) || handedOver.contains(id))) {
                owns.add(id);
            } else if (want != null && !want.equals(stringOrEmpty(t.get("value")))) {
                leftAlone.add("taint " + id);
            }
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
            if (!present.contains(id) && othersList.contains(id)) {
                leftAlone.add("taint " + id); // another install's, even while it is not on the node
            } else if (!present.contains(id)) {
                int colon = id.lastIndexOf(':');
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("key", id.substring(0, colon));
                if (!value.isEmpty()) {
                    t.put("value", value);
                }
                t.put("effect", id.substring(colon + 1));
                out.add(t);
                owns.add(id);
            }
        });
        return out;
    }

    /** The taints nfd-master lists as its own ({@code key=value:Effect} or {@code key:Effect}), as {@code key:effect}. */
    static Set<String> handedOver(Map<String, String> annotations) {
        Set<String> out = new TreeSet<>();
        for (String t : NodePatch.owned(annotations, NodePatch.NFD_TAINTS)) {
            int colon = t.lastIndexOf(':');
            if (colon > 0) {
                String keyAndValue = t.substring(0, colon);
                int eq = keyAndValue.indexOf('=');
                out.add((eq < 0 ? keyAndValue : keyAndValue.substring(0, eq)) + t.substring(colon));
            }
        }
        return out;
    }

    /** A taint's identity on a node: {@code key:effect}. */
    static String taintId(Map<String, Object> taint) {
        return stringOrEmpty(taint.get("key")) + ":" + stringOrEmpty(taint.get("effect"));
    }

    private static String stringOrEmpty(Object o) {
        return o == null ? "" : o.toString();
    }
}
