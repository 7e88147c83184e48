package io.nodelabeller.bench.fleet;

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
import io.vertx.core.http.ServerWebSocket;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Kubernetes API server for the fleet bench: Nodes and cluster-scoped NodeFeatureRule objects only, on loopback,
 * plain HTTP, with the semantics the agents depend on, as kube-apiserver and its watch cache have them
 * (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go, watch_cache.go; endpoints/handlers/patch.go):
 * <ul>
 * <li>one revision counter for every object (etcd's); an object's {@code resourceVersion} is the revision of its last
 *     change, a list's is the current revision;</li>
 * <li>GET, LIST (with {@code fieldSelector=metadata.name=…}), PATCH with a JSON patch (a failed {@code test} → 422, a
 *     {@code resourceVersion} in the patch that is not the stored one → 409), {@code /status} as the node;</li>
 * <li>WATCH over WebSocket (fabric8's transport) from a resourceVersion: the events after it are replayed, then live
 *     ones follow; a resourceVersion older than the oldest revision the cache holds is answered, as the watch cache
 *     does, with an ERROR event carrying a 410 Status ("too old resource version") and the watch is closed;
 *     {@code allowWatchBookmarks}: a BOOKMARK about every minute; {@code timeoutSeconds}: the watch is closed then;</li>
 * <li>{@link #restart()}: every connection is cut, nothing answers until {@link #resume()}; the watch cache of the
 *     restarted server starts at the current revision, so every watch resumed from an older one gets 410.</li>
 * </ul>
 * Each request is counted in a per-second bucket by verb (GET, LIST, WATCH, PATCH, OTHER), with the bytes received
 * and sent. A kubelet's status heartbeat (every {@code heartbeat}, at a random phase per node) changes each node.
 */
public final class FleetApiServer implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String NODES = "/api/v1/nodes";
    static final String NFRS = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules";

    public enum Verb { GET, LIST, WATCH, PATCH, OTHER }

    /** One second of traffic. */
    public static final class Second {
        public final long[] requests = new long[Verb.values().length];
        public long bytesIn;
        public long bytesOut;
        public long watchEvents;
        public long openWatches;
        public long refused;
    }

    private record Event(long revision, String kind, String type, String name, ObjectNode object) {
    }

    private final class Watch {
        final ServerWebSocket ws;
        final String kind;
        final String name; // null: every object of the kind
        long lastSent;
        long timer = -1;
        long bookmarkTimer = -1;

        Watch(ServerWebSocket ws, String kind, String name) {
            this.ws = ws;
            this.kind = kind;
            this.name = name;
        }

        boolean wants(Event e) {
            return e.kind.equals(kind) && (name == null || name.equals(e.name));
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

    private final Vertx vertx;
    private final int port;
    private final Random random = new Random(1);
    private final long bookmarkMillis;
    private volatile long maxWatchMillis; // 0: none (watch churn when set)
    private final Map<String, ObjectNode> nodes = new TreeMap<>();
    private final Map<String, ObjectNode> rules = new TreeMap<>();
    private final List<Event> history = new ArrayList<>();
    private long revision = 1;
    private long oldestRevision = 1;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final Map<Long, Second> seconds = new ConcurrentHashMap<>();
    private final long startMillis = System.currentTimeMillis();
    private final AtomicLong patchBytes = new AtomicLong();
    private final AtomicLong patches = new AtomicLong();
    private HttpServer server;
    private volatile boolean down;

    /**
     * @param bookmark  how often an open watch that asked for bookmarks gets one (kube-apiserver: about a minute)
     * @param heartbeat how often each node's status changes (kubelet's nodeStatusReportFrequency: 5 min); 0 = never
     */
    public FleetApiServer(int port, java.time.Duration bookmark, java.time.Duration heartbeat) throws Exception {
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2));
        this.port = port;
        this.bookmarkMillis = bookmark.toMillis();
        listen();
        if (!heartbeat.isZero()) {
            long every = heartbeat.toMillis();
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
        CountDownLatch ready = new CountDownLatch(1);
        Throwable[] failed = {null};
        HttpServer s = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port)
                .setMaxWebSocketFrameSize(1 << 20).setMaxWebSocketMessageSize(1 << 22).setIdleTimeout(0));
        s.webSocketHandler(this::watch).requestHandler(this::request).listen().onComplete(r -> {
            failed[0] = r.cause();
            ready.countDown();
        });
        if (!ready.await(10, TimeUnit.SECONDS) || failed[0] != null) {
            throw new IllegalStateException("cannot listen on " + port, failed[0]);
        }
        server = s;
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port + "/";
    }

    /** Counts since start, by second (0 = the server's start). */
    public Map<Long, Second> seconds() {
        return seconds;
    }

    public long second() {
        return (System.currentTimeMillis() - startMillis) / 1000;
    }

    public long patches() {
        return patches.get();
    }

    public long patchBytes() {
        return patchBytes.get();
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

    // ---- the store (always on the event loop, or under its lock from the bench thread) ----

    /** Creates or replaces a node as the kubelet registers it. */
    public synchronized void putNode(ObjectNode node) {
        store("Node", nodes, node, nodes.containsKey(name(node)) ? "MODIFIED" : "ADDED");
    }

    public synchronized ObjectNode node(String name) {
        ObjectNode n = nodes.get(name);
        return n == null ? null : n.deepCopy();
    }

    public synchronized List<ObjectNode> allNodes() {
        List<ObjectNode> out = new ArrayList<>();
        nodes.values().forEach(n -> out.add(n.deepCopy()));
        return out;
    }

    /** Creates or replaces a NodeFeatureRule object (kubectl apply). */
    public synchronized void putRule(ObjectNode rule) {
        store("NodeFeatureRule", rules, rule, rules.containsKey(name(rule)) ? "MODIFIED" : "ADDED");
    }

    private void store(String kind, Map<String, ObjectNode> map, ObjectNode object, String type) {
        revision++;
        ((ObjectNode) object.with("metadata")).put("resourceVersion", Long.toString(revision));
        map.put(name(object), object);
        Event e = new Event(revision, kind, type, name(object), object.deepCopy());
        history.add(e);
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
        for (ObjectNode n : new ArrayList<>(nodes.values())) {
            if (Math.floorMod(name(n).hashCode(), periodSeconds) == second % periodSeconds) {
                ObjectNode copy = n.deepCopy();
                for (JsonNode c : copy.path("status").path("conditions")) {
                    ((ObjectNode) c).put("lastHeartbeatTime", java.time.Instant.now().toString());
                }
                store("Node", nodes, copy, "MODIFIED");
            }
        }
    }

    // ---- faults ----

    /** Every connection cut, nothing answers (connection refused) until {@link #resume()}. */
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
     * Listening again. The watch cache of a restarted kube-apiserver starts at the current revision: a watch from an
     * older one gets 410 Gone.
     */
    public void resume(boolean cacheReset) throws Exception {
        synchronized (this) {
            if (cacheReset) { // the cache holds the current objects, no history: a watch from before now is too old
                oldestRevision = revision;
                history.clear();
            }
            down = false;
        }
        listen();
    }

    /** Watch churn: every watch, open or new, is closed by the server after a random time up to {@code max}; 0 = off. */
    public void churn(java.time.Duration max) {
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
        if (q == null) {
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

    private void request(HttpServerRequest req) {
        req.body().onSuccess(body -> {
            String path = req.path();
            Map<String, String> q = query(req.query());
            Answer a;
            Verb verb;
            synchronized (this) {
                if (path.equals(NODES) || path.equals(NFRS)) {
                    verb = q.containsKey("watch") ? Verb.WATCH : Verb.LIST;
                    a = verb == Verb.WATCH ? new Answer(400, status(400, "BadRequest", "watch needs a WebSocket"))
                            : list(path.equals(NODES) ? "NodeList" : "NodeFeatureRuleList",
                            path.equals(NODES) ? nodes : rules, q.get("fieldSelector"));
                } else if (path.startsWith(NODES + "/") && req.method().name().equals("GET")) {
                    verb = Verb.GET;
                    ObjectNode n = nodes.get(path.substring(NODES.length() + 1));
                    a = n == null ? new Answer(404, status(404, "NotFound", "nodes not found")) : new Answer(200, n.toString());
                } else if (path.startsWith(NODES + "/") && req.method().name().equals("PATCH")) {
                    verb = Verb.PATCH;
                    String name = path.substring(NODES.length() + 1);
                    if (name.endsWith("/status")) {
                        name = name.substring(0, name.length() - "/status".length());
                    }
                    a = patch(name, body.toString(), req.getHeader("Content-Type"));
                } else {
                    verb = Verb.OTHER;
                    a = new Answer(404, status(404, "NotFound", "the server could not find the requested resource"));
                }
            }
            count(verb, body.length(), a.body.length());
            req.response().setStatusCode(a.code).putHeader("Content-Type", "application/json").end(a.body);
        });
    }

    private record Answer(int code, String body) {
    }

    private Answer list(String kind, Map<String, ObjectNode> map, String fieldSelector) {
        ObjectNode list = JSON.createObjectNode();
        list.put("kind", kind);
        list.put("apiVersion", kind.equals("NodeList") ? "v1" : "nfd.k8s-sigs.io/v1alpha1");
        list.putObject("metadata").put("resourceVersion", Long.toString(revision));
        ArrayNode items = list.putArray("items");
        String only = fieldSelector != null && fieldSelector.startsWith("metadata.name=")
                ? fieldSelector.substring("metadata.name=".length()) : null;
        for (ObjectNode o : map.values()) {
            if (only == null || only.equals(name(o))) {
                items.add(o);
            }
        }
        return new Answer(200, list.toString());
    }

    private Answer patch(String name, String body, String contentType) {
        ObjectNode node = nodes.get(name);
        if (node == null) {
            return new Answer(404, status(404, "NotFound", "nodes \"" + name + "\" not found"));
        }
        if (contentType == null || !contentType.startsWith("application/json-patch+json")) {
            return new Answer(415, status(415, "UnsupportedMediaType", "only JSON patch here"));
        }
        patches.incrementAndGet();
        patchBytes.addAndGet(body.length());
        JsonNode patched;
        try {
            patched = JsonPatch.apply(JSON.readTree(body), node);
        } catch (Exception e) {
            return new Answer(422, status(422, "Invalid", "the patch could not be applied: " + e.getMessage()));
        }
        String rv = patched.path("metadata").path("resourceVersion").asText();
        if (!rv.equals(node.path("metadata").path("resourceVersion").asText())) {
            return new Answer(409, status(409, "Conflict", "Operation cannot be fulfilled on nodes \"" + name
                    + "\": the object has been modified; please apply your changes to the latest version and try again"));
        }
        store("Node", nodes, (ObjectNode) patched, "MODIFIED");
        return new Answer(200, nodes.get(name).toString());
    }

    static String status(int code, String reason, String message) {
        ObjectNode s = JSON.createObjectNode();
        s.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure").put("message", message)
                .put("reason", reason).put("code", code);
        s.putObject("metadata");
        return s.toString();
    }

    private void watch(ServerWebSocket ws) {
        String path = ws.path();
        Map<String, String> q = query(ws.query());
        String kind = path.equals(NODES) ? "Node" : path.equals(NFRS) ? "NodeFeatureRule" : null;
        if (kind == null || !q.containsKey("watch")) {
            count(Verb.OTHER, 0, 0);
            ws.reject(404);
            return;
        }
        count(Verb.WATCH, 0, 0);
        String fs = q.get("fieldSelector");
        Watch w = new Watch(ws, kind, fs != null && fs.startsWith("metadata.name=") ? fs.substring(14) : null);
        String rvText = q.getOrDefault("resourceVersion", "");
        long from = rvText.isEmpty() || rvText.equals("0") ? -1 : Long.parseLong(rvText);
        List<Event> replay = new ArrayList<>();
        boolean gone;
        synchronized (this) {
            gone = from >= 0 && from < oldestRevision;
            if (!gone) {
                if (from < 0) { // "any": the current objects as ADDED
                    for (ObjectNode o : (kind.equals("Node") ? nodes : rules).values()) {
                        Event e = new Event(Long.parseLong(o.path("metadata").path("resourceVersion").asText()), kind,
                                "ADDED", name(o), o.deepCopy());
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
                w.lastSent = from < 0 ? revision : Math.max(from, 0);
                watches.add(w);
            }
        }
        if (gone) {
            ObjectNode st = (ObjectNode) readTree(status(410, "Expired", "too old resource version: " + from
                    + " (" + oldestRevision + ")"));
            w.send("ERROR", st);
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
            w.send(e.type, e.object);
            w.lastSent = Math.max(w.lastSent, e.revision);
        }
        long timeout = q.containsKey("timeoutSeconds") ? Long.parseLong(q.get("timeoutSeconds")) * 1000 : 0;
        long churn = maxWatchMillis;
        long life = churn > 0 ? 1 + (long) (random.nextDouble() * churn) : 0;
        long closeIn = timeout > 0 && life > 0 ? Math.min(timeout, life) : Math.max(timeout, life);
        if (closeIn > 0) {
            closeAfter(w, closeIn);
        }
        if ("true".equals(q.get("allowWatchBookmarks"))) {
            long first = 1 + (long) (random.nextDouble() * bookmarkMillis);
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
        b.put("kind", w.kind).put("apiVersion", w.kind.equals("Node") ? "v1" : "nfd.k8s-sigs.io/v1alpha1");
        b.putObject("metadata").put("resourceVersion", Long.toString(rv));
        w.lastSent = Math.max(w.lastSent, rv);
        w.send("BOOKMARK", b);
        w.bookmarkTimer = vertx.setTimer(bookmarkMillis, id -> bookmark(w));
    }

    private static JsonNode readTree(String s) {
        try {
            return JSON.readTree(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A Node as a kubelet registers and reports it: its labels, addresses, capacity, conditions, images. */
    public static ObjectNode kubeletNode(String name, int images) {
        ObjectNode n = JSON.createObjectNode();
        n.put("apiVersion", "v1").put("kind", "Node");
        ObjectNode md = n.putObject("metadata");
        md.put("name", name).put("uid", java.util.UUID.nameUUIDFromBytes(name.getBytes()).toString())
                .put("creationTimestamp", "2026-11-01T00:00:00Z");
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", "linux");
        labels.put("node.kubernetes.io/instance-type", "p5.48xlarge");
        labels.put("topology.kubernetes.io/region", "us-east-1");
        labels.put("topology.kubernetes.io/zone", "us-east-1a");
        ObjectNode l = md.putObject("labels");
        labels.forEach(l::put);
        md.putObject("annotations").put("node.alpha.kubernetes.io/ttl", "0")
                .put("volumes.kubernetes.io/controller-managed-attach-detach", "true");
        n.putObject("spec").put("podCIDR", "10.0.0.0/24").put("providerID", "aws:///us-east-1a/i-" + name);
        ObjectNode st = n.putObject("status");
        for (String k : List.of("capacity", "allocatable")) {
            st.putObject(k).put("cpu", "192").put("memory", "2113645888Ki").put("pods", "110")
                    .put("ephemeral-storage", "3750000000Ki").put("hugepages-1Gi", "0").put("hugepages-2Mi", "0");
        }
        ArrayNode conditions = st.putArray("conditions");
        for (String t : List.of("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")) {
            conditions.addObject().put("type", t).put("status", t.equals("Ready") ? "True" : "False")
                    .put("lastHeartbeatTime", "2026-11-27T00:00:00Z").put("lastTransitionTime", "2026-11-01T00:00:00Z")
                    .put("reason", t.equals("Ready") ? "KubeletReady" : "KubeletHasSufficient" + t)
                    .put("message", t.equals("Ready") ? "kubelet is posting ready status" : "kubelet has no " + t);
        }
        ArrayNode addresses = st.putArray("addresses");
        addresses.addObject().put("type", "InternalIP").put("address", "10.0.0.1");
        addresses.addObject().put("type", "Hostname").put("address", name);
        st.putObject("daemonEndpoints").putObject("kubeletEndpoint").put("Port", 10250);
        st.putObject("nodeInfo").put("machineID", "0123456789abcdef").put("systemUUID", "ec2-0123")
                .put("bootID", "b00t").put("kernelVersion", "6.1.0-27-cloud-amd64").put("osImage", "Debian GNU/Linux 12")
                .put("containerRuntimeVersion", "containerd://1.7.22").put("kubeletVersion", "v1.33.1")
                .put("kubeProxyVersion", "v1.33.1").put("operatingSystem", "linux").put("architecture", "amd64");
        ArrayNode imgs = st.putArray("images");
        for (int i = 0; i < images; i++) {
            ObjectNode img = imgs.addObject();
            img.putArray("names").add("registry.example.com/team/image-" + i + "@sha256:" + "%064x".formatted(i))
                    .add("registry.example.com/team/image-" + i + ":v1." + i);
            img.put("sizeBytes", 100_000_000L + i);
        }
        return n;
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
