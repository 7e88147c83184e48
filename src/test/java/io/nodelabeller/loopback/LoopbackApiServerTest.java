package io.nodelabeller.loopback;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.nodelabeller.publish.KubernetesClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.nodelabeller.loopback.LoopbackApiServer.registeredNode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loopback API server (src/loopback) that the image build's class-data training, the image check and the fleet
 * bench share, held to what kube-apiserver does where the agent depends on it: the protocols its client picks (HTTP/2
 * by ALPN over TLS, watches over WebSocket), the bearer token, JSON patch and optimistic concurrency
 * (k8s.io/apiserver pkg/endpoints/handlers/patch.go: a patch that cannot be applied → 422, a stale resourceVersion →
 * 409), and the watch cache (pkg/storage/cacher/watch_cache.go: replay after a resourceVersion, ADDED for "any", an
 * ERROR event with a 410 "Expired" Status for one older than the cache holds; bookmarks; timeoutSeconds).
 */
class LoopbackApiServerTest {

    private static final String TOKEN = "test-token";

    @TempDir
    Path tmp;

    private LoopbackApiServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private LoopbackApiServer.Tls tlsServer() throws Exception {
        LoopbackApiServer.Tls tls = LoopbackApiServer.Tls.selfSigned(tmp);
        server = new LoopbackApiServer(LoopbackApiServer.Options.plain().tls(tls, TOKEN));
        server.putNode(registeredNode("worker-1"));
        return tls;
    }

    /** A JDK client trusting the server's CA alone, as the agent trusts its service account's ca.crt. */
    private static HttpClient trusting(Path caPem) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private HttpResponse<String> send(HttpClient http, String method, String path, String contentType, String body,
                                      String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void overTlsAnHttp2ClientGetsHttp2AndEveryRequestNeedsTheToken() throws Exception {
        LoopbackApiServer.Tls tls = tlsServer();
        HttpClient http = trusting(tls.caPem()); // HTTP/2 by default, offered by ALPN
        HttpResponse<String> ok = send(http, "GET", "/api/v1/nodes/worker-1", null, null, TOKEN);
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(HttpClient.Version.HTTP_2, ok.version());
        assertEquals("worker-1", LoopbackApiServer.JSON.readTree(ok.body()).path("metadata").path("name").asText());

        HttpResponse<String> noToken = send(http, "GET", "/api/v1/nodes/worker-1", null, null, null);
        HttpResponse<String> wrong = send(http, "GET", "/api/v1/nodes/worker-1", null, null, "other");
        assertEquals(401, noToken.statusCode());
        assertEquals(401, wrong.statusCode());
        assertEquals("Unauthorized", LoopbackApiServer.JSON.readTree(wrong.body()).path("reason").asText());

        assertEquals(new LoopbackApiServer.Protocols(3, 0, 0, 0), server.protocols());
    }

    /**
     * The agent's own client (KubernetesClients, fabric8 on the JDK's HTTP client) from a kubeconfig with the CA and
     * a token: its requests go over HTTP/2, its watch over WebSocket, and a JSON patch of the node reaches the watch as
     * a MODIFIED event with the new resourceVersion.
     */
    @Test
    void theAgentsClientWatchesOverWebSocketAndSeesItsPatchAsAnEvent() throws Exception {
        LoopbackApiServer.Tls tls = tlsServer();
        Path kubeconfig = tmp.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: loopback, cluster: {server: "%s", certificate-authority: %s}}]
                users: [{name: agent, user: {token: %s}}]
                contexts: [{name: loopback, context: {cluster: loopback, user: agent}}]
                current-context: loopback
                """.formatted(server.url(), tls.caPem(), TOKEN));
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        try (KubernetesClient client = KubernetesClients.create(kubeconfig)) {
            Node before = client.nodes().withName("worker-1").get();
            try (var watch = client.nodes().withField("metadata.name", "worker-1")
                    .withResourceVersion(before.getMetadata().getResourceVersion()).watch(new Watcher<>() {
                        @Override
                        public void eventReceived(Action action, Node node) {
                            events.add(action + " " + node.getMetadata().getResourceVersion() + " "
                                    + node.getMetadata().getLabels().get("example.com/a"));
                        }

                        @Override
                        public void onClose(WatcherException cause) {
                            events.add("closed " + cause);
                        }
                    })) {
                Node patched = client.nodes().withName("worker-1").patch(PatchContext.of(PatchType.JSON),
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels/example.com~1a\",\"value\":\"1\"}]");
                assertEquals("1", patched.getMetadata().getLabels().get("example.com/a"));
                assertEquals(Long.parseLong(before.getMetadata().getResourceVersion()) + 1,
                        Long.parseLong(patched.getMetadata().getResourceVersion()));
                assertEquals("MODIFIED " + patched.getMetadata().getResourceVersion() + " 1",
                        events.poll(10, TimeUnit.SECONDS));
            }
        }
        LoopbackApiServer.Protocols p = server.protocols();
        // every request but the watch's upgrade over HTTP/2 (fabric8 reads the node before it patches it)
        long requests = server.requestLog().stream().filter(r -> !r.startsWith("WebSocket ")).count();
        assertEquals(3, requests, server.requestLog().toString());
        assertEquals(new LoopbackApiServer.Protocols(requests, 0, 1, 0), p, server.requestLog().toString());
        assertEquals(1, server.patches());
    }

    @Test
    void jsonPatchAsTheApiServerAppliesIt() throws Exception {
        server = new LoopbackApiServer(LoopbackApiServer.Options.plain());
        server.putNode(registeredNode("worker-1"));
        HttpClient http = HttpClient.newHttpClient();
        String jsonPatch = "application/json-patch+json";
        String rv = server.node("worker-1").path("metadata").path("resourceVersion").asText();

        // pinned to the stored resourceVersion: applied; the object's resourceVersion is the new revision
        HttpResponse<String> ok = send(http, "PATCH", "/api/v1/nodes/worker-1", jsonPatch, """
                [{"op":"test","path":"/metadata/resourceVersion","value":"%s"},
                 {"op":"add","path":"/metadata/labels/example.com~1a","value":"1"}]""".formatted(rv), null);
        assertEquals(200, ok.statusCode(), ok.body());
        JsonNode after = LoopbackApiServer.JSON.readTree(ok.body());
        assertEquals(Long.parseLong(rv) + 1, after.path("metadata").path("resourceVersion").asLong());
        assertEquals("1", after.path("metadata").path("labels").path("example.com/a").asText());

        // the same patch again: its test fails (422 Invalid), nothing changes
        HttpResponse<String> stale = send(http, "PATCH", "/api/v1/nodes/worker-1", jsonPatch, """
                [{"op":"test","path":"/metadata/resourceVersion","value":"%s"},
                 {"op":"remove","path":"/metadata/labels/example.com~1a"}]""".formatted(rv), null);
        assertEquals(422, stale.statusCode(), stale.body());
        assertEquals("Invalid", LoopbackApiServer.JSON.readTree(stale.body()).path("reason").asText());
        // a patch that writes an old resourceVersion: the optimistic-concurrency check (409 Conflict)
        HttpResponse<String> conflict = send(http, "PATCH", "/api/v1/nodes/worker-1/status", jsonPatch, """
                [{"op":"replace","path":"/metadata/resourceVersion","value":"%s"}]""".formatted(rv), null);
        assertEquals(409, conflict.statusCode(), conflict.body());
        assertEquals("Conflict", LoopbackApiServer.JSON.readTree(conflict.body()).path("reason").asText());
        // a merge patch is not served; an absent node is NotFound with its details, as apiserver's
        assertEquals(415, send(http, "PATCH", "/api/v1/nodes/worker-1", "application/merge-patch+json", "{}", null)
                .statusCode());
        HttpResponse<String> absent = send(http, "GET", "/api/v1/nodes/worker-2", null, null, null);
        assertEquals(404, absent.statusCode());
        JsonNode status = LoopbackApiServer.JSON.readTree(absent.body());
        assertEquals("nodes \"worker-2\" not found", status.path("message").asText());
        assertEquals("nodes", status.path("details").path("kind").asText());
        assertEquals(after, server.node("worker-1"));

        // a list's resourceVersion is the current revision; a field selector picks one object
        server.putNode(registeredNode("worker-2"));
        JsonNode list = LoopbackApiServer.JSON.readTree(send(http, "GET",
                "/api/v1/nodes?fieldSelector=metadata.name%3Dworker-2", null, null, null).body());
        assertEquals("NodeList", list.path("kind").asText());
        assertEquals(1, list.path("items").size());
        assertEquals(list.path("metadata").path("resourceVersion"),
                list.path("items").get(0).path("metadata").path("resourceVersion"));
        // a watch over plain HTTP is refused here, and counted
        assertEquals(400, send(http, "GET", "/api/v1/nodes?watch=true", null, null, null).statusCode());
        assertEquals(1, server.protocols().httpWatches());
    }

    /** A watch over WebSocket with the JDK's client, every text message kept. */
    private WebSocket watch(String query, BlockingQueue<String> messages) throws Exception {
        CompletableFuture<WebSocket> ws = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(
                URI.create(server.url().replace("http:", "ws:") + "api/v1/nodes?watch=true&" + query),
                new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        messages.add(data.toString());
                        w.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
                        messages.add("closed");
                        return null;
                    }
                });
        return ws.get(10, TimeUnit.SECONDS);
    }

    private static String event(BlockingQueue<String> messages) throws Exception {
        String m = messages.poll(10, TimeUnit.SECONDS);
        assertNotNull(m, "no message within 10 s");
        if (m.equals("closed")) {
            return m;
        }
        JsonNode e = LoopbackApiServer.JSON.readTree(m);
        JsonNode o = e.path("object");
        return e.path("type").asText() + " " + (o.path("kind").asText().equals("Status") ? o.path("code").asText()
                + " " + o.path("reason").asText() : o.path("metadata").path("name").asText("") + " "
                + o.path("metadata").path("resourceVersion").asText());
    }

    @Test
    void watchesReplayFromTheirResourceVersionAndGetGoneOnceTheCacheNoLongerHoldsIt() throws Exception {
        server = new LoopbackApiServer(LoopbackApiServer.Options.plain().bookmark(Duration.ofMillis(200)));
        server.putNode(registeredNode("a")); // revision 2
        server.putNode(registeredNode("b")); // 3
        server.putNode(registeredNode("a")); // 4

        BlockingQueue<String> any = new LinkedBlockingQueue<>();
        watch("resourceVersion=0", any);
        assertEquals(List.of("ADDED a 4", "ADDED b 3"), List.of(event(any), event(any)));
        BlockingQueue<String> from2 = new LinkedBlockingQueue<>();
        watch("resourceVersion=2", from2);
        assertEquals(List.of("ADDED b 3", "MODIFIED a 4"), List.of(event(from2), event(from2)));
        server.putNode(registeredNode("b")); // 5, live to both
        assertEquals("MODIFIED b 5", event(any));

        // bookmarks when asked, carrying the current revision; timeoutSeconds ends the watch
        BlockingQueue<String> bookmarks = new LinkedBlockingQueue<>();
        watch("resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=1", bookmarks);
        assertEquals("BOOKMARK  5", event(bookmarks));
        String last;
        do {
            last = event(bookmarks);
        } while (last.startsWith("BOOKMARK"));
        assertEquals("closed", last);

        // a restarted server's cache starts now: a watch resumed from before gets 410 Expired, then the close
        server.restart();
        server.resume(true);
        BlockingQueue<String> resumed = new LinkedBlockingQueue<>();
        watch("resourceVersion=4", resumed);
        assertEquals("ERROR 410 Expired", event(resumed));
        assertEquals("closed", event(resumed));
        BlockingQueue<String> current = new LinkedBlockingQueue<>();
        watch("resourceVersion=5", current);
        server.putNode(registeredNode("a"));
        assertEquals("MODIFIED a 6", event(current));
    }

    @Test
    void theStateFileFollowsTheNode() throws Exception {
        server = new LoopbackApiServer(LoopbackApiServer.Options.plain());
        Path state = tmp.resolve("node.json");
        server.keepNodeIn("worker-1", state);
        server.putNode(registeredNode("worker-2"));
        assertTrue(Files.notExists(state));
        server.putNode(registeredNode("worker-1"));
        ObjectNode n = registeredNode("worker-1");
        n.withObjectProperty("metadata").withObjectProperty("labels").put("example.com/b", "2");
        server.putNode(n);
        assertEquals(server.node("worker-1"), LoopbackApiServer.JSON.readTree(Files.readString(state)));
        assertEquals("2", server.node("worker-1").path("metadata").path("labels").path("example.com/b").asText());
        assertNull(server.node("worker-3"));
    }

    /**
     * The server as a process, as bin/check-image.sh and docs/development.md run it: {@code Main --node NAME --state
     * FILE --tls DIR --token TOKEN --url-file FILE} serves the node over TLS with DIR/ca.crt as its CA, writes its URL
     * once it listens and the node after each change, and ends on SIGTERM; a usage error exits 2.
     */
    @Test
    void mainServesANodeAsTheImageCheckRunsIt() throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Process usage = new ProcessBuilder(javaBin, "-cp", cp, Main.class.getName(), "--tls", tmp.toString())
                .redirectErrorStream(true).start();
        assertTrue(usage.waitFor(60, TimeUnit.SECONDS));
        String said = new String(usage.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, usage.exitValue(), said);
        assertTrue(said.contains("--tls and --token go together"), said);

        Path url = tmp.resolve("url");
        Path state = tmp.resolve("node.json");
        Process p = new ProcessBuilder(javaBin, "-cp", cp, Main.class.getName(), "--node", "worker-1", "--state",
                state.toString(), "--tls", tmp.resolve("tls").toString(), "--token", TOKEN, "--url-file", url.toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("server.log").toFile()).start();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(url) && System.nanoTime() < end && p.isAlive()) {
                Thread.sleep(100);
            }
            assertTrue(Files.exists(url), Files.readString(tmp.resolve("server.log")));
            String base = Files.readString(url).strip();
            assertTrue(base.startsWith("https://127.0.0.1:"), base);
            HttpClient http = trusting(tmp.resolve("tls/ca.crt"));
            HttpResponse<String> patched = http.send(HttpRequest.newBuilder(URI.create(base + "api/v1/nodes/worker-1"))
                    .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json-patch+json")
                    .method("PATCH", HttpRequest.BodyPublishers.ofString(
                            "[{\"op\":\"add\",\"path\":\"/metadata/labels/example.com~1a\",\"value\":\"1\"}]"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, patched.statusCode(), patched.body());
            JsonNode written = LoopbackApiServer.JSON.readTree(Files.readString(state));
            assertEquals(LoopbackApiServer.JSON.readTree(patched.body()), written);
            assertEquals("1", written.path("metadata").path("labels").path("example.com/a").asText());
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends it");
        } finally {
            p.destroyForcibly();
        }
    }
}
