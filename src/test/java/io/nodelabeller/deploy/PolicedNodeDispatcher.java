package io.nodelabeller.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import io.nodelabeller.deploy.AdmissionPolicyTest.Decision;
import io.nodelabeller.deploy.AdmissionPolicyTest.Installed;
import io.nodelabeller.deploy.AdmissionRequests.User;
import io.nodelabeller.testing.NodeCrudDispatcher;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 mock API server in CRUD mode with kube-apiserver's node semantics ({@link NodeCrudDispatcher}) and one
 * install's node admission policy enforced on every PATCH of a node, as kube-apiserver enforces it for that install's
 * agent: the patch applied to the stored node (a status patch keeps the stored spec), the managedFields recorded as
 * the field manager records them ({@link FieldManager}), then the policy evaluated by {@link AdmissionPolicyTest}'s
 * harness with the agent's pod-bound token for the node; a denial (or an evaluation error, which denies under
 * failurePolicy Fail) answers 403 with the policy's message, as the API server does, and stores nothing.
 */
final class PolicedNodeDispatcher extends NodeCrudDispatcher {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final Pattern NODE = Pattern.compile("^/api/v1/nodes/([^/?]+)(/status)?(\\?.*)?$");

    private volatile Installed policy;
    private final User agent;
    private final List<String> refused = Collections.synchronizedList(new ArrayList<>());
    private final List<String> admitted = Collections.synchronizedList(new ArrayList<>());

    /** {@code agent}: the user every request is taken to come from (its token bound to the node it patches). */
    PolicedNodeDispatcher(Installed policy, User agent) {
        this.policy = policy;
        this.agent = agent;
    }

    /** From now on, {@code changed} is the policy (an install's binding edited: its scope changed). */
    void judgeWith(Installed changed) {
        this.policy = changed;
    }

    /** The messages of the refused writes, in order. */
    List<String> refused() {
        return List.copyOf(refused);
    }

    /** The admitted node writes ("nodes/n1", "nodes/n1/status"), in order. */
    List<String> admitted() {
        return List.copyOf(admitted);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        Matcher m = NODE.matcher(request.getPath());
        if (request.method() != HttpMethod.PATCH || !m.matches()) {
            return super.dispatch(request);
        }
        String node = m.group(1);
        boolean status = m.group(2) != null;
        MockResponse stored = super.dispatch(new RecordedRequest(request.getHttpVersion(), HttpMethod.GET, "/api/v1/nodes/" + node,
                request.getHeaders(), new Buffer()));
        if (stored.code() != 200) {
            return stored;
        }
        String body = request.getUtf8Body(); // read once (the buffer is consumed): the store gets a copy
        RecordedRequest copy = new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(), request.getHeaders(),
                new Buffer(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        try {
            JsonNode before = JSON.readTree(stored.getBody().readUtf8());
            JsonNode after = JsonPatch.apply(JSON.readTree(body), before);
            Map<String, Object> oldObject = asMap(before);
            Map<String, Object> object = asMap(after);
            if (status) {
                object.put("spec", oldObject.get("spec")); // nodeStatusStrategy.PrepareForUpdate
            }
            object = FieldManager.update(oldObject, object, "fabric8-kubernetes-client", status ? "status" : null);
            Decision d = AdmissionPolicyTest.admit(policy, AdmissionRequests.nodeUpdate(node,
                    status ? "status" : null, User.serviceAccount(namespace(agent), name(agent), node)), object, oldObject);
            if (!d.allowed()) {
                String message = String.join("; ", d.denials()) + (d.errors().isEmpty() ? "" : "; " + d.errors());
                refused.add(message);
                return new MockResponse().setResponseCode(403).setBody(JSON.writeValueAsString(Map.of("kind", "Status",
                        "apiVersion", "v1", "status", "Failure", "reason", "Forbidden", "code", 403,
                        "message", "nodes \"" + node + "\" is forbidden: ValidatingAdmissionPolicy '"
                                + policy.policy().getMetadata().getName() + "' denied request: " + message)));
            }
            admitted.add("nodes/" + node + (status ? "/status" : ""));
        } catch (Exception e) {
            throw new IllegalStateException("cannot judge " + request.getPath(), e);
        }
        return super.dispatch(copy);
    }

    /**
     * The node as the API server hands it to a policy (runtime.DefaultUnstructuredConverter.ToUnstructured of a typed
     * Node): {@code spec} and {@code status} are structs, present even when empty, which the mock's stored JSON may
     * leave out.
     */
    private static Map<String, Object> asMap(JsonNode node) {
        Map<String, Object> m = JSON.convertValue(node, new TypeReference<Map<String, Object>>() { });
        m.putIfAbsent("spec", new java.util.LinkedHashMap<>());
        m.putIfAbsent("status", new java.util.LinkedHashMap<>());
        return m;
    }

    private static String namespace(User u) {
        return u.username().split(":")[2];
    }

    private static String name(User u) {
        return u.username().split(":")[3];
    }
}
