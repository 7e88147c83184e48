package io.nodelabeller.testing;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.util.Map;
import java.util.Queue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 mock server's CRUD dispatcher, with a Node's {@code status} subresource behaving as kube-apiserver's:
 * a patch of {@code nodes/<name>/status} keeps its metadata changes (labels, annotations) as well as its status
 * changes, and only spec changes are dropped (kubernetes {@code pkg/registry/core/node/strategy.go},
 * {@code nodeStatusStrategy.PrepareForUpdate}: {@code newNode.Spec = oldNode.Spec}, nothing else is reset). The
 * mock's own status handling keeps the stored metadata, as for a custom resource; the agent lists an extended resource
 * in the status patch that writes it, so the difference matters. The agent sends no spec in a status patch, so such a
 * patch is applied to the node as a whole. {@link Mixed}: the same for the mixed (expectations + CRUD) dispatcher.
 */
public class NodeCrudDispatcher extends KubernetesCrudDispatcher {

    private static final Pattern NODE_STATUS = Pattern.compile("^(/api/v1/nodes/[^/?]+)/status(\\?.*)?$");

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        return super.dispatch(asApiServer(request));
    }

    /** A PATCH of a node's status as the whole node's; any other request as it is. */
    static RecordedRequest asApiServer(RecordedRequest request) {
        Matcher m = NODE_STATUS.matcher(request.getPath());
        if (request.method() != HttpMethod.PATCH || !m.matches()) {
            return request;
        }
        String path = m.group(1) + (m.group(2) == null ? "" : m.group(2));
        return new RecordedRequest(request.getHttpVersion(), request.method(), path, request.getHeaders(), request.getBody());
    }

    /** The mixed dispatcher (expected responses first, then CRUD) with the same node status semantics. */
    public static final class Mixed extends KubernetesMixedDispatcher {
        public Mixed(Map<ServerRequest, Queue<ServerResponse>> responses) {
            super(responses);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            return super.dispatch(asApiServer(request));
        }
    }
}
