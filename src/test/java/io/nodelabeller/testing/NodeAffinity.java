package io.nodelabeller.testing;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;

import java.util.List;
import java.util.Map;

/**
 * Whether a node's labels satisfy node affinity terms, as the scheduler decides: the terms are ORed, a term's
 * requirements ANDed (k8s.io/component-helpers/scheduling/corev1/nodeaffinity), each requirement evaluated as
 * k8s.io/apimachinery/pkg/labels/selector.go's {@code Requirement.Matches}: In and Exists need the label, NotIn and
 * DoesNotExist hold without it, Gt and Lt need the label and compare both sides as base-10 int64 (a value that does
 * not parse never matches).
 */
public final class NodeAffinity {

    private NodeAffinity() {
    }

    /** Whether {@code labels} satisfy at least one of {@code terms} (requiredDuringScheduling...'s nodeSelectorTerms). */
    public static boolean matches(Map<String, String> labels, List<NodeSelectorTerm> terms) {
        return terms.stream().anyMatch(t -> !t.getMatchExpressions().isEmpty()
                && t.getMatchExpressions().stream().allMatch(r -> matches(labels, r)));
    }

    /**
     * Whether a pod may run on a node with {@code labels}: every {@code nodeSelector} pair present and the required
     * node affinity, if any, satisfied ({@code GetRequiredNodeAffinity(pod).Match} in the same package). The DaemonSet
     * controller runs its pod exactly there and removes it when a label change ends it (pkg/controller/daemon,
     * {@code NodeShouldRunDaemonPod}).
     */
    public static boolean selects(PodSpec pod, Map<String, String> labels) {
        if (pod.getNodeSelector() != null && !pod.getNodeSelector().entrySet().stream()
                .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        var affinity = pod.getAffinity() == null ? null : pod.getAffinity().getNodeAffinity();
        var required = affinity == null ? null : affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
        return required == null || matches(labels, required.getNodeSelectorTerms());
    }

    /** One requirement. */
    public static boolean matches(Map<String, String> labels, NodeSelectorRequirement r) {
        String value = labels.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> {
                Long have = int64(value);
                Long want = values.size() == 1 ? int64(values.get(0)) : null;
                yield have != null && want != null && (r.getOperator().equals("Gt") ? have > want : have < want);
            }
            default -> throw new IllegalArgumentException("not a node selector operator: " + r.getOperator());
        };
    }

    /** Go's strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, in range; else null. */
    private static Long int64(String s) {
        if (s == null || !s.matches("[+-]?[0-9]+")) {
            return null;
        }
        try {
            return Long.parseLong(s.startsWith("+") ? s.substring(1) : s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
