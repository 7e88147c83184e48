package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Node as the API server returns it, reduced to what {@link NodePatch} plans with. */
final class NodeStates {

    private NodeStates() {
    }

    /** The node's labels, annotations, resourceVersion, taints (as maps) and its capacity and allocatable (as text). */
    static NodePatch.Node of(Node node) {
        List<Map<String, Object>> taints = null;
        if (node.getSpec() != null && node.getSpec().getTaints() != null) {
            taints = new ArrayList<>();
            for (Taint t : node.getSpec().getTaints()) {
                Map<String, Object> m = new LinkedHashMap<>();
                if (t.getEffect() != null) {
                    m.put("effect", t.getEffect());
                }
                m.put("key", t.getKey());
                if (t.getTimeAdded() != null) {
                    m.put("timeAdded", t.getTimeAdded());
                }
                if (t.getValue() != null) {
                    m.put("value", t.getValue());
                }
                m.putAll(t.getAdditionalProperties());
                taints.add(m);
            }
        }
        NodeStatus status = node.getStatus();
        return new NodePatch.Node(node.getMetadata().getLabels(), node.getMetadata().getAnnotations(),
                node.getMetadata().getResourceVersion(), taints,
                status == null ? null : amounts(status.getCapacity()), status == null ? null : amounts(status.getAllocatable()));
    }

    private static Map<String, String> amounts(Map<String, Quantity> quantities) {
        if (quantities == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        quantities.forEach((k, q) -> out.put(k, q == null ? "" : q.toString()));
        return out;
    }
}
