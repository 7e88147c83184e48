package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * GET and PATCH of one Node through fabric8's HTTP client (its auth, TLS and token refresh), sent as plain
 * requests so that we see the status and the {@code Retry-After} header of every failure and send exactly the
 * requests we mean to: fabric8's typed {@code withName(n).patch()} adds a GET before each PATCH, and its
 * exceptions drop the response headers.
 */
final class NodeApi {

    /** A request that did not succeed. {@code status} 0 = no HTTP answer (timeout, reset, refused). */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;
        final transient Duration retryAfter;

        Failure(int status, Duration retryAfter, String message, Throwable cause) {
            super(message, cause);
            this.status = status;
            this.retryAfter = retryAfter;
        }
    }

    private final KubernetesClient client;
    private final HttpClient http;
    private final String url;
    private final Duration timeout;
    private final Timing timing;

    NodeApi(KubernetesClient client, String nodeName, Duration timeout, Timing timing) {
        this.client = client;
        this.http = client.getHttpClient();
        String master = client.getConfiguration().getMasterUrl();
        this.url = (master.endsWith("/") ? master : master + "/") + "api/v1/nodes/" + nodeName;
        this.timeout = timeout;
        this.timing = timing;
    }

    Node get() throws Failure, InterruptedException {
        return send(http.newHttpRequestBuilder().uri(url).header("Accept", "application/json"), "GET");
    }

    Node patch(String jsonPatch) throws Failure, InterruptedException {
        return send(http.newHttpRequestBuilder().uri(url).header("Accept", "application/json")
                .method("PATCH", "application/json-patch+json", jsonPatch), "PATCH");
    }

    private Node send(HttpRequest.Builder builder, String verb) throws Failure, InterruptedException {
        HttpRequest request = builder.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build();
        CompletableFuture<HttpResponse<String>> future = http.sendAsync(request, String.class);
        HttpResponse<String> response;
        try {
            // the request timeout should fire first; this bound only guards against a client that hangs
            response = future.get(timeout.toMillis() + 2_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new Failure(0, null, verb + " " + url + ": no answer within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new Failure(0, null, verb + " " + url + ": " + describe(cause), cause);
        }
        int code = response.code();
        String body = response.body() == null ? "" : response.body();
        if (code >= 200 && code < 300) {
            Node node;
            try {
                node = client.getKubernetesSerialization().unmarshal(body, Node.class);
            } catch (RuntimeException e) {
                throw new Failure(0, null, verb + " " + url + ": unreadable answer: " + describe(e), e);
            }
            if (node == null || node.getMetadata() == null) {
                throw new Failure(0, null, verb + " " + url + ": HTTP " + code + " without a Node in the answer", null);
            }
            return node;
        }
        Duration retryAfter = Backoff.parseRetryAfter(response.header("Retry-After"), timing.now());
        throw new Failure(code, retryAfter, verb + " " + url + ": HTTP " + code + ": " + message(body), null);
    }

    /** The Status object's message when the body is one; otherwise the start of the body (a 429 is plain text). */
    private String message(String body) {
        String text = body.strip();
        if (text.startsWith("{")) {
            try {
                Status status = client.getKubernetesSerialization().unmarshal(text, Status.class);
                if (status != null && status.getMessage() != null) {
                    return status.getMessage();
                }
            } catch (RuntimeException notStatus) {
                // fall through to the raw text
            }
        }
        text = text.replaceAll("\\s+", " ");
        return text.isEmpty() ? "(no body)" : text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : " " + m);
    }
}
