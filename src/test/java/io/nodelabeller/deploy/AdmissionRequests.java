package io.nodelabeller.deploy;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CEL variable {@code request} of a ValidatingAdmissionPolicy, built exactly as kube-apiserver builds it, for
 * every policy test. Where it comes from (kubernetes, {@code staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/filter.go}):
 * {@code CreateAdmissionRequest} fills an {@code admission/v1 AdmissionRequest} from the request's attributes, and
 * {@code ForInput} turns it into a map with {@code runtime.DefaultUnstructuredConverter.ToUnstructured}. That
 * conversion honours the {@code omitempty} json tags of {@code k8s.io/api/admission/v1 AdmissionRequest} and
 * {@code k8s.io/api/authentication/v1 UserInfo}: an empty string, list or map (and a nil pointer) tagged omitempty
 * is <em>absent</em> from the map, not present and empty. So:
 * <ul>
 *   <li>{@code subResource} / {@code requestSubResource} are absent for a write to the node itself and present
 *       ({@code "status"}) only for {@code nodes/status};</li>
 *   <li>{@code namespace} is absent for a cluster-scoped object such as a Node;</li>
 *   <li>{@code userInfo.extra} is absent for a token without extras (any token that is not pod-bound), and
 *       {@code userInfo.groups} / {@code uid} when empty;</li>
 *   <li>fields without omitempty are always there, even empty: {@code uid} (CreateAdmissionRequest sets none),
 *       {@code kind}, {@code resource}, {@code operation}, {@code userInfo}, and {@code object} / {@code oldObject} /
 *       {@code options}, RawExtensions that marshal to {@code null} when unset ({@code object} and
 *       {@code oldObject} are deliberately left unset there: policies read the top-level variables instead).</li>
 * </ul>
 * {@code dryRun} is a pointer that CreateAdmissionRequest always sets, so it is present ({@code false}).
 */
final class AdmissionRequests {

    /** The pod-bound token's node name (kubernetes {@code pkg/serviceaccount/claims.go}, ServiceAccountTokenPodNodeInfo). */
    static final String NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";

    /**
     * {@code authentication/v1 UserInfo}: username, uid, groups, extra, all tagged omitempty.
     * {@code extra} values are lists ({@code ExtraValue []string}).
     */
    record User(String username, String uid, List<String> groups, Map<String, List<String>> extra) {

        /**
         * A service account token. {@code boundNode} null: a token that is not pod-bound (a legacy Secret token or
         * a TokenRequest without a pod), which carries no extras at all. Otherwise the extras the API server adds
         * to a pod-bound token since Kubernetes 1.30 (kubernetes {@code pkg/serviceaccount/claims.go}).
         */
        static User serviceAccount(String namespace, String name, String boundNode) {
            List<String> groups = List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated");
            Map<String, List<String>> extra = boundNode == null ? Map.of() : Map.of(
                    "authentication.kubernetes.io/credential-id", List.of("JTI=6f0c1c9e-34c4-4f43-9b3c-7c3f4a8d2d51"),
                    NODE_NAME_EXTRA, List.of(boundNode),
                    "authentication.kubernetes.io/node-uid", List.of("5b0e8a4e-4b2f-4a53-9a8f-1c5a0f6f7c11"),
                    "authentication.kubernetes.io/pod-name", List.of(name + "-x7k2p"),
                    "authentication.kubernetes.io/pod-uid", List.of("0d3c7a52-9a77-4bb1-8e2a-7c4d1e3f5a90"));
            return new User("system:serviceaccount:" + namespace + ":" + name, "a9e0b6f2-8a2d-4d0e-b1a4-2f1c9e7d6b33",
                    groups, extra);
        }

        /** A kubelet's client certificate: no uid, no extras. */
        static User kubelet(String node) {
            return new User("system:node:" + node, "", List.of("system:nodes", "system:authenticated"), Map.of());
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            putOmitEmpty(m, "username", username);
            putOmitEmpty(m, "uid", uid);
            putOmitEmpty(m, "groups", groups);
            putOmitEmpty(m, "extra", extra);
            return m;
        }
    }

    private AdmissionRequests() {
    }

    /**
     * An UPDATE of the Node {@code node} (the agent's JSON / merge patches reach admission as UPDATE), on the node
     * itself ({@code subResource} null) or a subresource such as {@code "status"}.
     */
    static Map<String, Object> nodeUpdate(String node, String subResource, User user) {
        return request("UPDATE", gvk("", "v1", "Node"), gvr("", "v1", "nodes"), subResource, node, null, user);
    }

    /** The map ToUnstructured makes of CreateAdmissionRequest's AdmissionRequest, field by field in its order. */
    static Map<String, Object> request(String operation, Map<String, Object> kind, Map<String, Object> resource,
                                       String subResource, String name, String namespace, User user) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("uid", "");                                   // json:"uid" (CreateAdmissionRequest sets none)
        r.put("kind", kind);                                // json:"kind"
        r.put("resource", resource);                        // json:"resource"
        putOmitEmpty(r, "subResource", subResource);        // json:"subResource,omitempty"
        r.put("requestKind", kind);                         // *GroupVersionKind, always set
        r.put("requestResource", resource);                 // *GroupVersionResource, always set
        putOmitEmpty(r, "requestSubResource", subResource); // json:"requestSubResource,omitempty"
        putOmitEmpty(r, "name", name);                      // json:"name,omitempty"
        putOmitEmpty(r, "namespace", namespace);            // json:"namespace,omitempty"
        r.put("operation", operation);                      // json:"operation"
        r.put("userInfo", user.toMap());                    // json:"userInfo" (a struct: always present)
        r.put("object", null);                              // RawExtension, unset: marshals to null
        r.put("oldObject", null);
        r.put("dryRun", false);                             // *bool, always set
        // CreateOptions / UpdateOptions (a PATCH's too) / DeleteOptions, marshalled from the RawExtension's object
        r.put("options", Map.of("kind", operation.charAt(0) + operation.substring(1).toLowerCase(java.util.Locale.ROOT) + "Options",
                "apiVersion", "meta.k8s.io/v1"));
        return r;
    }

    /** A write of an NFD NodeFeature (namespaced: {@code namespace} is present). */
    static Map<String, Object> nodeFeature(String operation, String name, String namespace, User user) {
        return request(operation, gvk("nfd.k8s-sigs.io", "v1alpha1", "NodeFeature"), gvr("nfd.k8s-sigs.io", "v1alpha1", "nodefeatures"),
                null, name, namespace, user);
    }

    static Map<String, Object> gvk(String group, String version, String kind) {
        return Map.of("group", group, "version", version, "kind", kind); // no omitempty: "" stays
    }

    static Map<String, Object> gvr(String group, String version, String resource) {
        return Map.of("group", group, "version", version, "resource", resource);
    }

    /** Go's omitempty as ToUnstructured applies it: nil, "", and empty lists and maps are left out. */
    static void putOmitEmpty(Map<String, Object> m, String key, Object value) {
        boolean empty = value == null
                || (value instanceof String s && s.isEmpty())
                || (value instanceof Collection<?> c && c.isEmpty())
                || (value instanceof Map<?, ?> mm && mm.isEmpty());
        if (!empty) {
            m.put(key, value);
        }
    }
}
