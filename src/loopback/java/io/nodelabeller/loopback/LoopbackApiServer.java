package io.nodelabeller.loopback;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.net.PfxOptions;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The project's one Kubernetes API server on loopback, for what has no cluster: the class-data training of the image
 * build ({@link CdsTraining}), the image check (bin/check-image.sh, through {@link Main}) and the fleet bench. It serves
 * the kinds the agent reads and writes — Nodes, NFD's NodeFeatureRule objects and the install's ClusterRoleBinding,
 * all cluster-scoped — with the semantics the agent depends on, as kube-apiserver and its watch cache have them
 * (k8s.io/apiserver: pkg/storage/cacher/cacher.go and watch_cache.go, pkg/endpoints/handlers/patch.go and watch.go):
 * <ul>
 * <li>one revision counter for every object (etcd's); an object's {@code resourceVersion} is the revision of its last
 *     change, a list's is the current revision;</li>
 * <li>GET, LIST (with {@code fieldSelector=metadata.name=…}), PATCH with a JSON patch (RFC 6902: a failed
 *     {@code test} → 422 Invalid; a {@code resourceVersion} in the patched object that is not the stored one → 409
 *     Conflict, apiserver's optimistic concurrency), {@code /status} as the object itself;</li>
 * <li>WATCH over WebSocket (what fabric8's clients use) from a resourceVersion: the events after it are replayed, then
 *     live ones follow; from "" or "0" the current objects come as ADDED; a resourceVersion older than the oldest
 *     revision the cache holds gets an ERROR event carrying a 410 Status ("too old resource version") and the watch is
 *     closed; {@code allowWatchBookmarks}: a BOOKMARK at a random time within the bookmark period, then every period;
 *     {@code timeoutSeconds}: the watch is closed then. A watch asked over plain HTTP is refused (400) and counted: no
 *     agent here takes that path;</li>
 * <li>plain HTTP, or TLS with HTTP/2 and HTTP/1.1 offered by ALPN in that order (as Go's server does), so a client
 *     that speaks HTTP/2 to kube-apiserver speaks it here; a bearer token when one is set (401 otherwise);</li>
 * <li>faults: {@link #restart()} cuts every connection and refuses new ones until {@link #resume(boolean)}; a resumed
 *     server's watch cache may start at the current revision, so every watch resumed from an older one gets 410;
 *     {@link #churn(Duration)} closes every watch after a random time.</li>
 * </ul>
 * Every request is counted in a per-second bucket by verb, with the bytes received and sent, and by protocol.
 */
public final class LoopbackApiServer implements AutoCloseable {

    public static final ObjectMapper JSON = new ObjectMapper();
    public static final String NODES = "/api/v1/nodes";
    public static final String NODE_FEATURE_RULES = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules";
    public static final String CLUSTER_ROLE_BINDINGS = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";

    /** The kinds served, each under its collection's path. */
    public enum Resource {
        NODE(NODES, "Node", "v1", "nodes"),
        NODE_FEATURE_RULE(NODE_FEATURE_RULES, "NodeFeatureRule", "nfd.k8s-sigs.io/v1alpha1", "nodefeaturerules"),
        CLUSTER_ROLE_BINDING(CLUSTER_ROLE_BINDINGS, "ClusterRoleBinding", "rbac.authorization.k8s.io/v1",
                "clusterrolebindings");

        final String path;
        final String kind;
        final String apiVersion;
        final String plural;

        Resource(String path, String kind, String apiVersion, String plural) {
            this.path = path;
            this.kind = kind;
            this.apiVersion = apiVersion;
            this.plural = plural;
        }

        static Resource ofKind(String kind) {
            for (Resource r : values()) {
                if (r.kind.equals(kind)) {
                    return r;
                }
            }
            throw new IllegalArgumentException("not served here: kind " + kind);
        }
    }

    public enum Verb { GET, LIST, WATCH, PATCH, OTHER }

    /** One second of traffic. */
    public static final class Second {
        public final long[] requests = new long[Verb.values().length];
        public long bytesIn;
        public long bytesOut;
        public long watchEvents;
        public long openWatches;
    }

    /** What a client sees of the protocols: requests by HTTP version, watches by transport. */
    public record Protocols(long http2Requests, long http1Requests, long webSocketWatches, long httpWatches) {
        @Override
        public String toString() {
            return http2Requests + " requests over HTTP/2, " + http1Requests + " over HTTP/1.1, " + webSocketWatches
                    + " watches over WebSocket, " + httpWatches + " over plain HTTP";
        }
    }

    /**
     * How the server listens and behaves.
     *
     * @param port      0: any free port
     * @param tls       null: plain HTTP
     * @param token     the bearer token every request must carry; null: none asked
     * @param bookmark  how often an open watch that asked for bookmarks gets one (kube-apiserver: about a minute)
     * @param heartbeat how often each node's status changes, as a kubelet's status report (5 min); zero: never
     */
    public record Options(int port, Tls tls, String token, Duration bookmark, Duration heartbeat) {
        public static Options plain() {
            return new Options(0, null, null, Duration.ofMinutes(1), Duration.ZERO);
        }

        public Options port(int p) {
            return new Options(p, tls, token, bookmark, heartbeat);
        }

        public Options tls(Tls t, String bearer) {
            return new Options(port, t, bearer, bookmark, heartbeat);
        }

        public Options bookmark(Duration d) {
            return new Options(port, tls, token, d, heartbeat);
        }

        public Options heartbeat(Duration d) {
            return new Options(port, tls, token, bookmark, d);
        }
    }

    /** A PKCS#12 key store with the server's key and certificate, and that certificate in PEM (the clients' CA). */
    public record Tls(Path keyStore, String password, Path caPem) {
        /**
         * An RSA key and a self-signed certificate for 127.0.0.1 made by this JDK's keytool, as a cluster CA would
         * make one (the IP address as a subjectAltName, which clients check), in {@code dir}.
         */
        public static Tls selfSigned(Path dir) throws IOException, InterruptedException {
            Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
            Path store = dir.resolve("apiserver.p12");
            Path pem = dir.resolve("ca.crt");
            String password = "loopback-apiserver";
            keytool(List.of(keytool.toString(), "-genkeypair", "-alias", "api", "-keyalg", "RSA", "-keysize", "2048",
                    "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                    "-keystore", store.toString(), "-storepass", password, "-keypass", password));
            keytool(List.of(keytool.toString(), "-exportcert", "-rfc", "-alias", "api", "-keystore", store.toString(),
                    "-storepass", password, "-file", pem.toString()));
            return new Tls(store, password, pem);
        }

        private static void keytool(List<String> cmd) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("keytool failed: " + out);
            }
        }
    }

    private record Event(long revision, Resource resource, String type, String name, ObjectNode object) {
    }

    private final class Watch {
        final ServerWebSocket ws;
        final Resource resource;
        final String name; // null: every object of the kind
        long lastSent;
        long timer = -1;
        long bookmarkTimer = -1;

        Watch(ServerWebSocket ws, Resource resource, String name) {
            this.ws = ws;
            this.resource = resource;
            this.name = name;
        }

        boolean wants(Event e) {
            return e.resource == resource && (name == null || name.equals(e.name));
        }

        void send(String type, ObjectNode object) {
            ObjectNode frame = JSON.createObjectNode();
            frame.put("type", type);
            frame.set("object", object);
            String text = frame.toString();
            ws.writeTextMessage(text);
            Second s = now();
            synchronized (s) {
                s.bytesOut += text.length();
                s.watchEvents++;
            }
        }
    }

    private final Options options;
    private final Vertx vertx;
    private final Random random = new Random(1);
    private final Map<Resource, Map<String, ObjectNode>> store = new HashMap<>();
    private final List<Event> history = new ArrayList<>();
    private long revision = 1;
    private long oldestRevision = 1;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final Map<Long, Second> seconds = new ConcurrentHashMap<>();
    private final long startMillis = System.currentTimeMillis();
    private final AtomicLong patchBytes = new AtomicLong();
    private final AtomicLong http2 = new AtomicLong();
    private final AtomicLong http1 = new AtomicLong();
    private final AtomicLong webSocketWatches = new AtomicLong();
    private final AtomicLong httpWatches = new AtomicLong();
    private final List<Consumer<ObjectNode>> listeners = new CopyOnWriteArrayList<>();
    private final Deque<String> requestLog = new ArrayDeque<>();
    private long patches;
    private long applied;
    private volatile long maxWatchMillis; // 0: no churn
    private volatile int port;
    private HttpServer server;
    private volatile boolean down;

    public LoopbackApiServer(Options options) throws Exception {
        this.options = options;
        this.port = options.port();
        for (Resource r : Resource.values()) {
            store.put(r, new TreeMap<>());
        }
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2));
        listen();
        if (!options.heartbeat().isZero()) {
            long every = options.heartbeat().toMillis();
            vertx.setPeriodic(1000, id -> heartbeats(every));
        }
        vertx.setPeriodic(1000, id -> {
            Second s = now();
            synchronized (s) {
                s.openWatches = watches.size();
            }
        });
    }

    private void listen() throws Exception {
        HttpServerOptions o = new HttpServerOptions().setHost("127.0.0.1").setPort(port)
                .setMaxWebSocketFrameSize(1 << 20).setMaxWebSocketMessageSize(1 << 22).setIdleTimeout(0);
        if (options.tls() != null) {
            o.setSsl(true).setUseAlpn(true).setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
                    .setKeyCertOptions(new PfxOptions().setPath(options.tls().keyStore().toString())
                            .setPassword(options.tls().password()));
        }
        CountDownLatch ready = new CountDownLatch(1);
        Throwable[] failed = {null};
        HttpServer s = vertx.createHttpServer(o);
        s.webSocketHandler(this::watch).requestHandler(this::request).listen().onComplete(r -> {
            failed[0] = r.cause();
            ready.countDown();
        });
        if (!ready.await(10, TimeUnit.SECONDS) || failed[0] != null) {
            throw new IllegalStateException("cannot listen on 127.0.0.1:" + port, failed[0]);
        }
        port = s.actualPort();
        server = s;
    }

    public int port() {
        return port;
    }

    /** The server's URL, with a trailing slash (as a kubeconfig's server). */
    public String url() {
        return (options.tls() == null ? "http" : "https") + "://127.0.0.1:" + port + "/";
    }

    /** Counts since start, by second (0 = the server's start). */
    public Map<Long, Second> seconds() {
        return seconds;
    }

    public long second() {
        return (System.currentTimeMillis() - startMillis) / 1000;
    }

    /** JSON patches of an object that is there, applied or refused (the fleet's write load). */
    public synchronized long patches() {
        return patches;
    }

    public long patchBytes() {
        return patchBytes.get();
    }

    public Protocols protocols() {
        return new Protocols(http2.get(), http1.get(), webSocketWatches.get(), httpWatches.get());
    }

    /** The last requests, in order ("PATCH /api/v1/nodes/x 200"), for a failure's message. */
    public synchronized List<String> requestLog() {
        return List.copyOf(requestLog);
    }

    /** Called with a copy of every object stored, under the store's lock (in order). */
    public void onStore(Consumer<ObjectNode> listener) {
        listeners.add(listener);
    }

    /** Waits until {@code n} PATCH requests have been applied; false if the time ran out first. */
    public synchronized boolean awaitPatches(long n, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (applied < n) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    private Second now() {
        return seconds.computeIfAbsent(second(), k -> new Second());
    }

    private void count(Verb verb, long in, long out) {
        Second s = now();
        synchronized (s) {
            s.requests[verb.ordinal()]++;
            s.bytesIn += in;
            s.bytesOut += out;
        }
    }

    private synchronized void log(String line) {
        if (requestLog.size() == 200) {
            requestLog.removeFirst();
        }
        requestLog.addLast(line);
    }

    // ---- the store ----

    /** Creates or replaces a node as the kubelet registers it. */
    public void putNode(ObjectNode node) {
        put(Resource.NODE, node);
    }

    /** Creates or replaces a NodeFeatureRule object (kubectl apply). */
    public void putRule(ObjectNode rule) {
        put(Resource.NODE_FEATURE_RULE, rule);
    }

    /** Creates or replaces an object of a kind served here (its {@code kind} field says which). */
    public synchronized void put(ObjectNode object) {
        put(Resource.ofKind(object.path("kind").asText()), object);
    }

    private synchronized void put(Resource r, ObjectNode object) {
        store(r, object.deepCopy(), store.get(r).containsKey(name(object)) ? "MODIFIED" : "ADDED");
    }

    /** A Node as a kubelet registers it, as far as the agent reads it: its name and the hostname and os labels. */
    public static ObjectNode registeredNode(String name) {
        ObjectNode node = JSON.createObjectNode().put("kind", "Node").put("apiVersion", "v1");
        node.putObject("metadata").put("name", name).putObject("labels").put("kubernetes.io/hostname", name)
                .put("kubernetes.io/os", "linux");
        return node;
    }

    public synchronized ObjectNode node(String name) {
        ObjectNode n = store.get(Resource.NODE).get(name);
        return n == null ? null : n.deepCopy();
    }

    public synchronized List<ObjectNode> allNodes() {
        List<ObjectNode> out = new ArrayList<>();
        store.get(Resource.NODE).values().forEach(n -> out.add(n.deepCopy()));
        return out;
    }

    private void store(Resource r, ObjectNode object, String type) {
        revision++;
        object.withObjectProperty("metadata").put("resourceVersion", Long.toString(revision));
        store.get(r).put(name(object), object);
        Event e = new Event(revision, r, type, name(object), object.deepCopy());
        history.add(e);
        for (Consumer<ObjectNode> l : listeners) {
            l.accept(object.deepCopy());
        }
        List<Watch> to = new ArrayList<>();
        for (Watch w : watches) {
            if (w.wants(e)) {
                to.add(w);
            }
        }
        vertx.runOnContext(v -> to.forEach(w -> {
            if (w.lastSent < e.revision) {
                w.lastSent = e.revision;
                w.send(e.type, e.object);
            }
        }));
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("name").asText();
    }

    private synchronized void heartbeats(long every) {
        if (down) {
            return;
        }
        long second = second();
        long periodSeconds = Math.max(1, every / 1000);
        for (ObjectNode n : new ArrayList<>(store.get(Resource.NODE).values())) {
            if (Math.floorMod(name(n).hashCode(), periodSeconds) == second % periodSeconds) {
                ObjectNode copy = n.deepCopy();
                for (JsonNode c : copy.path("status").path("conditions")) {
                    ((ObjectNode) c).put("lastHeartbeatTime", java.time.Instant.now().toString());
                }
                store(Resource.NODE, copy, "MODIFIED");
            }
        }
    }

    // ---- faults ----

    /** Every connection cut, nothing answers (connection refused) until {@link #resume(boolean)}. */
    public void restart() throws Exception {
        down = true;
        CountDownLatch closed = new CountDownLatch(1);
        server.close().onComplete(r -> closed.countDown());
        closed.await(10, TimeUnit.SECONDS);
        for (Watch w : watches) {
            w.ws.close();
        }
        watches.clear();
    }

    /**
     * Listening again, on the same port. With {@code cacheReset}, the watch cache holds the current objects and no
     * history, as a restarted kube-apiserver's: a watch from an older revision gets 410 Gone.
     */
    public void resume(boolean cacheReset) throws Exception {
        synchronized (this) {
            if (cacheReset) {
                oldestRevision = revision;
                history.clear();
            }
            down = false;
        }
        listen();
    }

    /** Watch churn: every watch, open or new, is closed by the server after a random time up to {@code max}; 0 = off. */
    public void churn(Duration max) {
        maxWatchMillis = max.toMillis();
        vertx.runOnContext(v -> {
            for (Watch w : watches) {
                if (maxWatchMillis > 0) {
                    closeAfter(w, 1 + (long) (random.nextDouble() * maxWatchMillis));
                }
            }
        });
    }

    private void closeAfter(Watch w, long millis) {
        if (w.timer >= 0) {
            vertx.cancelTimer(w.timer);
        }
        w.timer = vertx.setTimer(millis, id -> w.ws.close());
    }

    // ---- HTTP ----

    private static Map<String, String> query(String q) {
        Map<String, String> out = new HashMap<>();
        if (q == null || q.isEmpty()) {
            return out;
        }
        for (String part : q.split("&")) {
            int eq = part.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
        return out;
    }

    private boolean authorized(String header) {
        return options.token() == null || ("Bearer " + options.token()).equals(header);
    }

    private record Answer(Verb verb, int code, String body) {
    }

    private static final Answer METHOD_NOT_ALLOWED = new Answer(Verb.OTHER, 405, status(405, "MethodNotAllowed",
            "the server does not allow this method on the requested resource", null));

    private void request(HttpServerRequest req) {
        (req.version() == HttpVersion.HTTP_2 ? http2 : http1).incrementAndGet();
        req.body().onSuccess(body -> {
            Answer a = authorized(req.getHeader("Authorization"))
                    ? answer(req.method().name(), req.path(), query(req.query()), req.getHeader("Content-Type"),
                            body.toString())
                    : new Answer(Verb.OTHER, 401, status(401, "Unauthorized", "Unauthorized", null));
            log(req.method().name() + " " + req.uri() + " " + a.code());
            count(a.verb(), body.length(), a.body().length());
            req.response().setStatusCode(a.code()).putHeader("Content-Type", "application/json").end(a.body());
        });
    }

    private synchronized Answer answer(String method, String path, Map<String, String> q, String contentType,
                                       String body) {
        for (Resource r : Resource.values()) {
            if (path.equals(r.path)) {
                if (!method.equals("GET")) {
                    return METHOD_NOT_ALLOWED;
                }
                if (q.containsKey("watch") && !q.get("watch").equals("false") && !q.get("watch").equals("0")) {
                    httpWatches.incrementAndGet();
                    return new Answer(Verb.WATCH, 400, status(400, "BadRequest",
                            "watches are served over WebSocket only here", null));
                }
                return new Answer(Verb.LIST, 200, list(r, q.get("fieldSelector")));
            }
            if (path.startsWith(r.path + "/")) {
                String name = path.substring(r.path.length() + 1);
                if (name.endsWith("/status")) {
                    name = name.substring(0, name.length() - "/status".length());
                }
                ObjectNode o = store.get(r).get(name);
                if (method.equals("GET")) {
                    return o == null ? notFound(Verb.GET, r, name) : new Answer(Verb.GET, 200, o.toString());
                } else if (method.equals("PATCH")) {
                    return patch(r, name, o, body, contentType);
                }
                return METHOD_NOT_ALLOWED;
            }
        }
        return new Answer(Verb.OTHER, 404, status(404, "NotFound", "the server could not find the requested resource",
                null));
    }

    private static Answer notFound(Verb verb, Resource r, String name) {
        return new Answer(verb, 404, status(404, "NotFound", r.plural + " \"" + name + "\" not found",
                JSON.createObjectNode().put("name", name).put("kind", r.plural)));
    }

    private String list(Resource r, String fieldSelector) {
        ObjectNode list = JSON.createObjectNode();
        list.put("kind", r.kind + "List");
        list.put("apiVersion", r.apiVersion);
        list.putObject("metadata").put("resourceVersion", Long.toString(revision));
        ArrayNode items = list.putArray("items");
        String only = fieldSelector != null && fieldSelector.startsWith("metadata.name=")
                ? fieldSelector.substring("metadata.name=".length()) : null;
        for (ObjectNode o : store.get(r).values()) {
            if (only == null || only.equals(name(o))) {
                items.add(o);
            }
        }
        return list.toString();
    }

    private Answer patch(Resource r, String name, ObjectNode stored, String body, String contentType) {
        if (stored == null) {
            return notFound(Verb.PATCH, r, name);
        }
        if (contentType == null || !contentType.startsWith("application/json-patch+json")) {
            return new Answer(Verb.PATCH, 415, status(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types here: "
                            + "application/json-patch+json", null));
        }
        patches++;
        patchBytes.addAndGet(body.length());
        JsonNode patched;
        try {
            patched = JsonPatch.apply(JSON.readTree(body), stored);
        } catch (Exception e) { // a failed test, a path that is not there (apiserver: 422 from the patcher)
            return new Answer(Verb.PATCH, 422, status(422, "Invalid", "the patch could not be applied: "
                    + e.getMessage(), null));
        }
        String rv = patched.path("metadata").path("resourceVersion").asText();
        if (!rv.equals(stored.path("metadata").path("resourceVersion").asText())) {
            return new Answer(Verb.PATCH, 409, status(409, "Conflict", "Operation cannot be fulfilled on " + r.plural
                    + " \"" + name + "\": the object has been modified; please apply your changes to the latest "
                    + "version and try again", null));
        }
        store(r, (ObjectNode) patched, "MODIFIED");
        applied++;
        notifyAll();
        return new Answer(Verb.PATCH, 200, store.get(r).get(name).toString());
    }

    /** A metav1.Status, as the API server answers an error. */
    static String status(int code, String reason, String message, ObjectNode details) {
        ObjectNode s = JSON.createObjectNode();
        s.put("kind", "Status").put("apiVersion", "v1");
        s.putObject("metadata");
        s.put("status", "Failure").put("message", message).put("reason", reason);
        if (details != null) {
            s.set("details", details);
        }
        s.put("code", code);
        return s.toString();
    }

    private void watch(ServerWebSocket ws) {
        Map<String, String> q = query(ws.query());
        Resource resource = null;
        for (Resource r : Resource.values()) {
            if (r.path.equals(ws.path())) {
                resource = r;
            }
        }
        int refused = !authorized(ws.headers().get("Authorization")) ? 401
                : resource == null || !q.containsKey("watch") ? 404 : 0;
        if (refused != 0) {
            count(Verb.OTHER, 0, 0);
            log("WebSocket " + ws.uri() + " " + refused);
            ws.reject(refused);
            return;
        }
        count(Verb.WATCH, 0, 0);
        webSocketWatches.incrementAndGet();
        String fs = q.get("fieldSelector");
        Watch w = new Watch(ws, resource, fs != null && fs.startsWith("metadata.name=") ? fs.substring(14) : null);
        String rvText = q.getOrDefault("resourceVersion", "");
        long from = rvText.isEmpty() || rvText.equals("0") ? -1 : Long.parseLong(rvText);
        List<Event> replay = new ArrayList<>();
        boolean gone;
        long oldest;
        synchronized (this) {
            oldest = oldestRevision;
            gone = from >= 0 && from < oldestRevision;
            if (!gone) {
                if (from < 0) { // "any": the current objects as ADDED
                    for (ObjectNode o : store.get(resource).values()) {
                        Event e = new Event(Long.parseLong(o.path("metadata").path("resourceVersion").asText()),
                                resource, "ADDED", name(o), o.deepCopy());
                        if (w.wants(e)) {
                            replay.add(e);
                        }
                    }
                } else {
                    for (Event e : history) {
                        if (e.revision > from && w.wants(e)) {
                            replay.add(e);
                        }
                    }
                }
                w.lastSent = from < 0 ? revision : from;
                watches.add(w);
            }
        }
        log("WebSocket " + ws.uri() + (gone ? " 410" : ""));
        if (gone) {
            w.send("ERROR", (ObjectNode) readTree(status(410, "Expired", "too old resource version: " + from + " ("
                    + oldest + ")", null)));
            ws.close();
            return;
        }
        ws.closeHandler(v -> {
            watches.remove(w);
            if (w.timer >= 0) {
                vertx.cancelTimer(w.timer);
            }
            if (w.bookmarkTimer >= 0) {
                vertx.cancelTimer(w.bookmarkTimer);
            }
        });
        for (Event e : replay) {
            w.send(e.type(), e.object());
            w.lastSent = Math.max(w.lastSent, e.revision());
        }
        long timeout = q.containsKey("timeoutSeconds") ? Long.parseLong(q.get("timeoutSeconds")) * 1000 : 0;
        long churn = maxWatchMillis;
        long life = churn > 0 ? 1 + (long) (random.nextDouble() * churn) : 0;
        long closeIn = timeout > 0 && life > 0 ? Math.min(timeout, life) : Math.max(timeout, life);
        if (closeIn > 0) {
            closeAfter(w, closeIn);
        }
        if ("true".equals(q.get("allowWatchBookmarks"))) {
            long first = 1 + (long) (random.nextDouble() * options.bookmark().toMillis());
            w.bookmarkTimer = vertx.setTimer(first, id -> bookmark(w));
        }
    }

    private void bookmark(Watch w) {
        if (!watches.contains(w)) {
            return;
        }
        long rv;
        synchronized (this) {
            rv = revision;
        }
        ObjectNode b = JSON.createObjectNode();
        b.put("kind", w.resource.kind).put("apiVersion", w.resource.apiVersion);
        b.putObject("metadata").put("resourceVersion", Long.toString(rv));
        w.lastSent = Math.max(w.lastSent, rv);
        w.send("BOOKMARK", b);
        w.bookmarkTimer = vertx.setTimer(options.bookmark().toMillis(), id -> bookmark(w));
    }

    static JsonNode readTree(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code node}'s JSON to {@code file} (replaced whole) after every change of it. */
    public void keepNodeIn(String node, Path file) {
        onStore(o -> {
            if ("Node".equals(o.path("kind").asText()) && node.equals(name(o))) {
                try {
                    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                    Files.writeString(tmp, o.toString());
                    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
    }

    @Override
    public void close() {
        CountDownLatch done = new CountDownLatch(1);
        vertx.close().onComplete(r -> done.countDown());
        try {
            done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
