package io.nodelabeller.publish;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one way node-labeller sends requests to the API server: plain requests through fabric8's HTTP client (its
 * auth, TLS and token refresh), so that every failure shows its status and {@code Retry-After} header and exactly the
 * requests we mean are sent (fabric8's typed {@code patch()} adds a GET before each PATCH, and its exceptions drop
 * the response headers). Every request has a deadline. {@link Retrying} decides what a failure means; the node
 * patch, the NodeFeature object and the owner-reference lookups all go through both.
 */
final class ApiClient {

    private static final Logger LOG = LoggerFactory.getLogger(ApiClient.class);

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

    static final String JSON = "application/json";
    static final String JSON_PATCH = "application/json-patch+json";

    private final KubernetesClient client;
    private final HttpClient http;
    private final String master;
    private final Duration timeout;
    private final Timing timing;

    ApiClient(KubernetesClient client, Duration timeout, Timing timing) {
        this.client = client;
        this.http = client.getHttpClient();
        String url = client.getConfiguration().getMasterUrl();
        this.master = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.timeout = timeout;
        this.timing = timing;
    }

    /**
     * Builds, on a short-lived thread, what reading {@code type}'s JSON needs (Jackson's deserializers of its whole
     * model: about 120 classes for a Node, ~0.1 s interpreted at start-up), so that this overlaps with the first
     * request instead of following its answer; a read that comes first waits for it in Jackson's cache and nothing is
     * built twice. Nothing is sent. A failure here is ignored: the real read meets and reports it.
     */
    void prepareReading(Class<? extends HasMetadata> type) {
        Thread t = new Thread(() -> {
            try {
                client.getKubernetesSerialization().unmarshal("{}", type);
            } catch (RuntimeException e) {
                LOG.debug("preparing to read {}: {}", type.getSimpleName(), e.toString());
            }
        }, "prepare-" + type.getSimpleName());
        t.setDaemon(true);
        t.start();
    }

    /** {@code GET path} ({@code /api/v1/nodes/n}), the answer read as {@code type}. */
    <T extends HasMetadata> T get(String path, Class<T> type) throws Failure, InterruptedException {
        return send(request(path), "GET", path, type);
    }

    /** {@code PATCH path} with a body of {@code contentType} (a JSON Patch, a merge patch). */
    <T extends HasMetadata> T patch(String path, String contentType, String body, Class<T> type)
            throws Failure, InterruptedException {
        return send(request(path).method("PATCH", contentType, body), "PATCH", path, type);
    }

    /** {@code POST path} (create) with {@code object} as JSON. */
    <T extends HasMetadata> T post(String path, T object, Class<T> type) throws Failure, InterruptedException {
        return send(request(path).method("POST", JSON, client.getKubernetesSerialization().asJson(object)), "POST", path, type);
    }

    /** {@code PUT path} (replace, guarded by the object's resourceVersion) with {@code object} as JSON. */
    <T extends HasMetadata> T put(String path, T object, Class<T> type) throws Failure, InterruptedException {
        return send(request(path).method("PUT", JSON, client.getKubernetesSerialization().asJson(object)), "PUT", path, type);
    }

    private HttpRequest.Builder request(String path) {
        return http.newHttpRequestBuilder().uri(master + path).header("Accept", JSON);
    }

    private <T extends HasMetadata> T send(HttpRequest.Builder builder, String verb, String path, Class<T> type)
            throws Failure, InterruptedException {
        HttpRequest request = builder.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS).build();
        String what = verb + " " + path;
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
            throw new Failure(0, null, what + ": no answer within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new Failure(0, null, what + ": " + describe(cause), cause);
        }
        int code = response.code();
        String body = response.body() == null ? "" : response.body();
        if (code >= 200 && code < 300) {
            T object;
            try {
                object = client.getKubernetesSerialization().unmarshal(body, type);
            } catch (RuntimeException e) {
                throw new Failure(0, null, what + ": unreadable answer: " + describe(e), e);
            }
            if (object == null || object.getMetadata() == null) {
                throw new Failure(0, null, what + ": HTTP " + code + " without a " + type.getSimpleName()
                        + " in the answer", null);
            }
            return object;
        }
        Duration retryAfter = Backoff.parseRetryAfter(response.header("Retry-After"), timing.now());
        throw new Failure(code, retryAfter, what + ": HTTP " + code + ": " + message(body), null);
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
