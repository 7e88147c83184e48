import jdk.internal.net.http.hpack.Decoder;
import jdk.internal.net.http.hpack.Encoder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The class-data-sharing training of bin/build-runtime.sh: runs node-labeller's {@code print} and its daemon
 * ({@code run}) on the runtime being built, records every class they load ({@code -XX:DumpLoadedClassList}), and
 * writes the union, from which the script dumps the AppCDS archive. Every start maps the whole archive, and once its
 * file is cached most of it is resident, so every class in it costs memory whether it is used or not: the training
 * should make the daemon load what it loads on a node, no more and no less.
 *
 * <p>The daemon needs a Kubernetes API server and the image build has none, so this program is one for the length
 * of the training, speaking to the agent as kube-apiserver does: TLS on loopback with a key made for it by keytool,
 * a bearer token, HTTP/2 chosen by ALPN for requests (RFC 9113; the JDK's own HPACK codec, from module
 * java.net.http, encodes and decodes the headers), and watches over WebSocket (RFC 6455; a text message per event,
 * as k8s.io/apiserver's watch handler sends JSON). It serves what the agent asks for its Node (GET, LIST, the watch,
 * JSON Patch PATCH, applied to the labels and annotations and then sent to the watch as a MODIFIED event, so later
 * cycles find nothing to change, as on a node) and for the NodeFeatureRule objects (an empty LIST and a watch).
 * After the first PATCH and a few 1 s cycles, it reads the agent's /metrics, /healthz and /readyz and stops it with
 * SIGTERM, as the kubelet would. It fails when the agent's requests did not take those paths (no HTTP/2, a watch not
 * over WebSocket): an archive trained on another path would hold classes the daemon does not use.
 *
 * <p>{@code print} reads the build machine's own host. The daemon does too, unless GPU_HOST_ROOT and NVML_LIBRARY
 * are given (bin/build-runtime.sh gives the tests' gpu-server host tree and their fake libnvidia-ml): then it reads
 * that host through NVML, so that the NVML path is trained, and the training fails if the node did not get
 * {@code nvidia.com/gpu.product} (a label only NVML gives).
 *
 * <p>Run by the build JDK in source-file mode (no compile step, nothing of it in the image):
 * {@code java --add-exports java.net.http/jdk.internal.net.http.hpack=ALL-UNNAMED bin/CdsTraining.java RUNTIME_JAVA
 * JVM_OPTIONS JAR CLASSLIST [GPU_HOST_ROOT NVML_LIBRARY]}. Every wait is bounded; it fails (exit 1, with the agent's
 * output) rather than write a partial list.
 */
public class CdsTraining {

    private static final String NODE = "cds-training";
    private static final String TOKEN = "cds-training-token";
    private static final Duration FIRST_PATCH = Duration.ofSeconds(90);
    private static final int CYCLES_AFTER_PATCH = 4;
    /** NFD's NodeFeatureRule objects, which run reads with one LIST and one watch. */
    private static final String RULES = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules";
    /** The agent's install, as the DaemonSet names it (NODE_LABELLER_INSTANCE): its ClusterRoleBinding. */
    private static final String INSTALL = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/node-labeller";

    private final AtomicInteger resourceVersion = new AtomicInteger(100);
    private final AtomicInteger patches = new AtomicInteger();
    private final AtomicInteger http2Requests = new AtomicInteger();
    private final AtomicInteger http1Requests = new AtomicInteger();
    private final AtomicInteger webSocketWatches = new AtomicInteger();
    private final AtomicInteger otherWatches = new AtomicInteger();
    private final CountDownLatch patched = new CountDownLatch(1);
    /** The node's labels and annotations: JSON-escaped key → JSON-escaped value, as the patches wrote them. */
    private final Map<String, String> labels = new LinkedHashMap<>(Map.of("kubernetes.io/hostname", NODE,
            "kubernetes.io/os", "linux"));
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private final Set<WebSocket> nodeWatches = ConcurrentHashMap.newKeySet();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    /** What the agent asked, in order, shown when the training fails. */
    private final List<String> requestLog = java.util.Collections.synchronizedList(new ArrayList<>());

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 6) {
            System.err.println("usage: java --add-exports java.net.http/jdk.internal.net.http.hpack=ALL-UNNAMED "
                    + "CdsTraining.java RUNTIME_JAVA JVM_OPTIONS JAR CLASSLIST [GPU_HOST_ROOT NVML_LIBRARY]");
            System.exit(2);
        }
        List<String> gpuHost = args.length == 6 ? List.of("--host-root", args[4], "--nvml-library", args[5]) : List.of();
        Path work = Files.createTempDirectory("cds-training");
        try {
            new CdsTraining().train(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), gpuHost,
                    work);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private void train(Path java, Path options, Path jar, Path classList, List<String> gpuHost, Path work)
            throws Exception {
        Path config = work.resolve("training.yaml");
        int agentPort = freePort();
        Files.writeString(config, "core:\n  sleepInterval: 1s\ndaemon:\n  port: " + agentPort + "\n");

        // print: the one-shot path (config file, every source on this build machine's own host)
        Path printList = work.resolve("print.lst");
        Process print = agent(java, options, jar, printList, work, List.of(), "print", "--no-timestamp",
                "--config", config.toString());
        finish(print, work, "print");

        // run: the daemon against this loopback API server until it has patched its node and cycled a few times
        ServerSocket api = apiServer(keyPair(work));
        Path runList = work.resolve("run.lst");
        try {
            String master = "https://127.0.0.1:" + api.getLocalPort();
            List<String> env = List.of("KUBERNETES_MASTER=" + master, "KUBERNETES_AUTH_TOKEN=" + TOKEN,
                    "KUBERNETES_CERTS_CA_FILE=" + work.resolve("ca.crt"), "HOME=" + work);
            List<String> run = new ArrayList<>(List.of("run", "--node-name", NODE, "--instance", "node-labeller",
                    "--config", config.toString()));
            run.addAll(gpuHost);
            Process daemon = agent(java, options, jar, runList, work, env, run.toArray(String[]::new));
            if (!patched.await(FIRST_PATCH.toSeconds(), TimeUnit.SECONDS)) {
                daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("the daemon did not patch its node within " + FIRST_PATCH.toSeconds() + " s (requests: "
                        + String.join(", ", requestLog) + ")", work, "run");
            }
            Thread.sleep(CYCLES_AFTER_PATCH * 1000L);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (String path : List.of("/metrics", "/healthz", "/readyz")) {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agentPort + path))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
            }
            daemon.destroy(); // SIGTERM
            finish(daemon, work, "run");
        } finally {
            api.close();
            for (Socket s : connections) {
                s.close();
            }
        }
        String requests = http2Requests.get() + " requests over HTTP/2, " + http1Requests.get() + " over HTTP/1.1, "
                + webSocketWatches.get() + " watches over WebSocket, " + otherWatches.get() + " other watches, "
                + patches.get() + " node patches";
        if (http2Requests.get() == 0 || webSocketWatches.get() == 0 || otherWatches.get() > 0) {
            fail("the daemon did not talk to the API server as it does on a node (" + requests + "; in order: "
                    + String.join(", ", requestLog) + ")", work, "run");
        }
        if (!gpuHost.isEmpty() && !labels.containsKey("nvidia.com/gpu.product")) {
            fail("the daemon did not label the GPU of " + gpuHost.get(1) + " through NVML (no nvidia.com/gpu.product)",
                    work, "run");
        }

        Set<String> lines = new LinkedHashSet<>(Files.readAllLines(printList));
        lines.addAll(Files.readAllLines(runList));
        Files.write(classList, lines);
        System.out.println("cds training: " + lines.stream().filter(l -> !l.startsWith("@")).count()
                + " classes (print; run" + (gpuHost.isEmpty() ? "" : " on " + gpuHost.get(1) + " with its NVML") + ": "
                + requests + ")");
    }

    private static Process agent(Path java, Path options, Path jar, Path list, Path work, List<String> env,
                                 String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "@" + options, "-Xshare:off",
                "-XX:DumpLoadedClassList=" + list, "-jar", jar.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(work.resolve(args[0] + ".log").toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("KUBECONFIG");
        for (String e : env) {
            pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
        }
        return pb.start();
    }

    private static void finish(Process p, Path work, String name) throws Exception {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail(name + " did not end within 60 s", work, name);
        }
        if (p.exitValue() != 0) {
            fail(name + " exited with " + p.exitValue(), work, name);
        }
    }

    private static void fail(String why, Path work, String name) throws IOException {
        System.err.println("cds training: " + why + "; its output:");
        System.err.println(Files.readString(work.resolve(name + ".log")));
        System.exit(1);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** An RSA key and a self-signed certificate for 127.0.0.1 (keytool, as a cluster CA would make one), and its PEM. */
    private static Path keyPair(Path work) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Path keystore = work.resolve("api.p12");
        exec(List.of(keytool.toString(), "-genkeypair", "-alias", "api", "-keyalg", "RSA", "-keysize", "2048",
                "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", TOKEN, "-keypass", TOKEN));
        exec(List.of(keytool.toString(), "-exportcert", "-rfc", "-alias", "api", "-keystore", keystore.toString(),
                "-storepass", TOKEN, "-file", work.resolve("ca.crt").toString()));
        return keystore;
    }

    private static void exec(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(cmd.get(0) + " failed: " + out);
        }
    }

    /** The TLS listener; each connection gets a thread and speaks HTTP/2 or HTTP/1.1, as its ALPN chose. */
    private ServerSocket apiServer(Path keystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, TOKEN.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, TOKEN.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        SSLServerSocket server = (SSLServerSocket) tls.getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        SSLParameters params = server.getSSLParameters();
        params.setApplicationProtocols(new String[] {"h2", "http/1.1"}); // the server's preference, as Go's
        server.setSSLParameters(params);
        daemon("training-api", () -> {
            while (!server.isClosed()) {
                try {
                    SSLSocket s = (SSLSocket) server.accept();
                    connections.add(s);
                    daemon("training-api-connection", () -> serve(s));
                } catch (IOException closed) {
                    return;
                }
            }
        });
        return server;
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private void serve(SSLSocket s) {
        try (s) {
            s.setSoTimeout((int) FIRST_PATCH.toMillis() * 2);
            s.startHandshake();
            if ("h2".equals(s.getApplicationProtocol())) {
                new Http2(s).serve();
            } else {
                serveHttp1(s);
            }
        } catch (IOException | RuntimeException e) {
            // the agent closed the connection, or the training is over
        } finally {
            connections.remove(s);
        }
    }

    /** A request, whichever protocol carried it; header names in lower case. */
    private record Request(String method, String path, String query, Map<String, String> headers, byte[] body) {
        static Request of(String method, String target, Map<String, String> headers, byte[] body) {
            URI uri = URI.create(target);
            return new Request(method, uri.getRawPath(), uri.getRawQuery() == null ? "" : uri.getRawQuery(), headers,
                    body);
        }

        boolean isWatch() {
            return method.equals("GET") && query.matches("(^|.*&)watch=(true|1)(&.*|$)");
        }
    }

    private record Reply(int status, String json) {
        byte[] body() {
            return json.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The API server's answer to everything but a watch. */
    private synchronized Reply answer(Request r) {
        requestLog.add(r.method() + " " + r.path() + (r.query().isEmpty() ? "" : "?" + r.query()));
        String node = "/api/v1/nodes/" + NODE;
        boolean ourNode = r.path().equals(node) || r.path().equals(node + "/status");
        if (!("Bearer " + TOKEN).equals(r.headers().get("authorization"))) {
            return status(401, "Unauthorized", "no or wrong bearer token");
        } else if (r.isWatch()) {
            otherWatches.incrementAndGet();
            return status(400, "BadRequest", "watches are served over WebSocket only here");
        } else if (ourNode && r.method().equals("GET")) {
            return new Reply(200, node());
        } else if (ourNode && r.method().equals("PATCH")) {
            if (!"application/json-patch+json".equals(r.headers().get("content-type"))) {
                return status(415, "UnsupportedMediaType", "only JSON Patch is served here");
            }
            applyJsonPatch(new String(r.body(), StandardCharsets.UTF_8));
            resourceVersion.incrementAndGet();
            patches.incrementAndGet();
            String json = node();
            for (WebSocket w : nodeWatches) {
                w.event("MODIFIED", json);
            }
            patched.countDown();
            return new Reply(200, json);
        } else if (r.path().equals(INSTALL) && r.method().equals("GET")) {
            // the install's ClusterRoleBinding, whose annotations are what the agent may write (manifests/base/common)
            return new Reply(200, "{\"kind\":\"ClusterRoleBinding\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                    + "\"metadata\":{\"name\":\"node-labeller\",\"resourceVersion\":\"1\",\"annotations\":{"
                    + "\"node-labeller.io/label-domains\":\"\",\"node-labeller.io/nvidia-keys\":\"nvidia.com/gds.capable\","
                    + "\"node-labeller.io/denied-keys\":\"\",\"node-labeller.io/taints\":\"false\","
                    + "\"node-labeller.io/extended-resources\":\"false\"}},\"roleRef\":{\"apiGroup\":"
                    + "\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"node-labeller\"},\"subjects\":[{"
                    + "\"kind\":\"ServiceAccount\",\"name\":\"node-labeller\",\"namespace\":\"node-labeller\"}]}");
        } else if (r.path().equals(RULES) && r.method().equals("GET")) {
            // the NodeFeatureRule objects' informer: a cluster with NFD's CRD and no objects
            return new Reply(200, "{\"kind\":\"NodeFeatureRuleList\",\"apiVersion\":\"nfd.k8s-sigs.io/v1alpha1\","
                    + "\"metadata\":{\"resourceVersion\":\"" + resourceVersion.get() + "\"},\"items\":[]}");
        } else if (r.path().equals("/api/v1/nodes") && r.method().equals("GET")) {
            return new Reply(200, "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                    + resourceVersion.get() + "\"},\"items\":[" + node() + "]}");
        }
        return status(404, "NotFound", r.method() + " " + r.path() + " is not served here");
    }

    /** One JSON Patch operation on a label or an annotation (JSON-escaped strings; RFC 6901 escapes in the path). */
    private static final Pattern METADATA_OP = Pattern.compile("\\{\"op\":\"(add|replace|remove)\",\"path\":"
            + "\"/metadata/(labels|annotations)/((?:[^\"\\\\]++|\\\\.)++)\"(?:,\"value\":\"((?:[^\"\\\\]++|\\\\.)*+)\")?");

    /** Applies the label and annotation operations; the rest (the resourceVersion test, taints) changes nothing here. */
    private void applyJsonPatch(String patch) {
        Matcher m = METADATA_OP.matcher(patch);
        while (m.find()) {
            Map<String, String> map = m.group(2).equals("labels") ? labels : annotations;
            String key = m.group(3).replace("~1", "/").replace("~0", "~");
            if (m.group(1).equals("remove")) {
                map.remove(key);
            } else if (m.group(4) != null) {
                map.put(key, m.group(4));
            }
        }
    }

    private synchronized String node() {
        return "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + NODE + "\",\"uid\":"
                + "\"00000000-0000-4000-8000-000000000001\",\"resourceVersion\":\"" + resourceVersion.get() + "\","
                + "\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"labels\":" + object(labels) + ",\"annotations\":"
                + object(annotations) + "},\"spec\":{},\"status\":{\"capacity\":{\"cpu\":\"2\",\"memory\":\"4Gi\"},"
                + "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
    }

    private static String object(Map<String, String> escaped) {
        return escaped.entrySet().stream().map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"")
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static Reply status(int code, String reason, String message) {
        return new Reply(code, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\"" + message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}");
    }

    // ---- HTTP/1.1: what the JDK client's WebSocket handshake uses (and any client that does not offer h2) ----

    private void serveHttp1(SSLSocket s) throws IOException {
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        for (String requestLine = line(in); requestLine != null && !requestLine.isEmpty(); requestLine = line(in)) {
            String[] parts = requestLine.split(" ");
            Map<String, String> headers = new HashMap<>();
            for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                int colon = h.indexOf(':');
                headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
            }
            byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
            Request r = Request.of(parts[0], parts[1], headers, body);
            http1Requests.incrementAndGet();
            if (r.isWatch() && "websocket".equalsIgnoreCase(headers.get("upgrade"))
                    && ("Bearer " + TOKEN).equals(headers.get("authorization"))) {
                new WebSocket(in, out, r).serve();
                return;
            }
            Reply reply = answer(r);
            byte[] bytes = reply.body();
            out.write(("HTTP/1.1 " + reply.status() + " \r\nContent-Type: application/json\r\nContent-Length: "
                    + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return b.length() == 0 ? null : b.toString();
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    /** A watch over WebSocket: one text message per event; the agent's close and pings are answered. */
    private final class WebSocket {
        private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
        private final InputStream in;
        private final OutputStream out;
        private final Request request;

        WebSocket(InputStream in, OutputStream out, Request request) {
            this.in = in;
            this.out = out;
            this.request = request;
        }

        void serve() throws IOException {
            String accept;
            try {
                accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                        .digest((request.headers().get("sec-websocket-key") + GUID).getBytes(StandardCharsets.US_ASCII)));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            synchronized (this) {
                out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            webSocketWatches.incrementAndGet();
            requestLog.add("WebSocket " + request.path() + "?" + request.query());
            boolean nodes = request.path().equals("/api/v1/nodes");
            // allowWatchBookmarks: the API server sends a bookmark now and then; one comes at once here
            event("BOOKMARK", "{" + (nodes ? "\"kind\":\"Node\",\"apiVersion\":\"v1\"" : "\"kind\":\"NodeFeatureRule\","
                    + "\"apiVersion\":\"nfd.k8s-sigs.io/v1alpha1\"") + ",\"metadata\":{\"resourceVersion\":\""
                    + resourceVersion.get() + "\"}}");
            if (nodes) {
                nodeWatches.add(this);
            }
            try {
                while (true) {
                    int b0 = in.read();
                    int b1 = in.read();
                    if (b0 < 0 || b1 < 0) {
                        return;
                    }
                    long length = b1 & 0x7f;
                    if (length == 126) {
                        length = new DataInputStream(in).readUnsignedShort();
                    } else if (length == 127) {
                        length = new DataInputStream(in).readLong();
                    }
                    byte[] mask = (b1 & 0x80) != 0 ? in.readNBytes(4) : new byte[4];
                    byte[] payload = in.readNBytes((int) length);
                    for (int i = 0; i < payload.length; i++) {
                        payload[i] ^= mask[i % 4];
                    }
                    int opcode = b0 & 0x0f;
                    if (opcode == 0x8) { // close: echo it, then the connection ends
                        frame(0x8, payload);
                        return;
                    } else if (opcode == 0x9) {
                        frame(0xA, payload);
                    }
                }
            } finally {
                nodeWatches.remove(this);
            }
        }

        void event(String type, String object) {
            try {
                frame(0x1, ("{\"type\":\"" + type + "\",\"object\":" + object + "}").getBytes(StandardCharsets.UTF_8));
            } catch (IOException gone) {
                nodeWatches.remove(this);
            }
        }

        /** A final, unmasked frame (servers do not mask). */
        private synchronized void frame(int opcode, byte[] payload) throws IOException {
            ByteArrayOutputStream f = new ByteArrayOutputStream();
            f.write(0x80 | opcode);
            if (payload.length < 126) {
                f.write(payload.length);
            } else if (payload.length <= 0xffff) {
                f.write(126);
                f.write(payload.length >>> 8);
                f.write(payload.length & 0xff);
            } else {
                f.write(127);
                f.write(ByteBuffer.allocate(8).putLong(payload.length).array());
            }
            f.write(payload);
            out.write(f.toByteArray());
            out.flush();
        }
    }

    // ---- HTTP/2: what the agent's client (the JDK's, through fabric8) uses for every other request ----

    /** One HTTP/2 connection, server side: the frames a client sends, each request answered on its stream. */
    private final class Http2 {
        private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        private static final int DATA = 0x0, HEADERS = 0x1, RST_STREAM = 0x3, SETTINGS = 0x4, PING = 0x6,
                GOAWAY = 0x7, WINDOW_UPDATE = 0x8, CONTINUATION = 0x9;
        private static final int END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY = 0x20;
        /** SETTINGS_MAX_FRAME_SIZE's default, which this server does not raise. */
        private static final int MAX_FRAME = 16_384;

        private final DataInputStream in;
        private final OutputStream out;
        /** HPACK's default table size on both sides (SETTINGS_HEADER_TABLE_SIZE, not changed by this server). */
        private final Decoder decoder = new Decoder(4096);
        private final Encoder encoder = new Encoder(4096);
        private final Map<Integer, Exchange> streams = new HashMap<>();

        private final class Exchange {
            final ByteArrayOutputStream headerBlock = new ByteArrayOutputStream();
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            final Map<String, String> headers = new HashMap<>();
            boolean endStream;
        }

        Http2(SSLSocket s) throws IOException {
            this.in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            this.out = s.getOutputStream();
        }

        void serve() throws IOException {
            if (!java.util.Arrays.equals(in.readNBytes(PREFACE.length), PREFACE)) {
                throw new IOException("no HTTP/2 connection preface");
            }
            frame(SETTINGS, 0, 0, new byte[0]);
            while (true) {
                int length;
                try {
                    length = (in.readUnsignedShort() << 8) | in.readUnsignedByte();
                } catch (EOFException closed) {
                    return;
                }
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int id = in.readInt() & 0x7fffffff;
                byte[] payload = in.readNBytes(length);
                switch (type) {
                    case SETTINGS -> {
                        if ((flags & ACK) == 0) {
                            frame(SETTINGS, ACK, 0, new byte[0]);
                        }
                    }
                    case PING -> {
                        if ((flags & ACK) == 0) {
                            frame(PING, ACK, 0, payload);
                        }
                    }
                    case HEADERS -> {
                        int from = 0;
                        int padding = 0;
                        if ((flags & PADDED) != 0) {
                            padding = payload[0] & 0xff;
                            from = 1;
                        }
                        if ((flags & PRIORITY) != 0) {
                            from += 5;
                        }
                        Exchange st = streams.computeIfAbsent(id, k -> new Exchange());
                        st.endStream = (flags & END_STREAM) != 0;
                        st.headerBlock.write(payload, from, payload.length - from - padding);
                        if ((flags & END_HEADERS) != 0) {
                            headersDone(id, st);
                        }
                    }
                    case CONTINUATION -> {
                        Exchange st = streams.get(id);
                        st.headerBlock.write(payload);
                        if ((flags & END_HEADERS) != 0) {
                            headersDone(id, st);
                        }
                    }
                    case DATA -> {
                        int from = (flags & PADDED) != 0 ? 1 : 0;
                        int padding = from == 1 ? payload[0] & 0xff : 0;
                        Exchange st = streams.get(id);
                        st.body.write(payload, from, payload.length - from - padding);
                        if (length > 0) { // give the flow-control window back, connection and stream
                            byte[] increment = ByteBuffer.allocate(4).putInt(length).array();
                            frame(WINDOW_UPDATE, 0, 0, increment);
                            if ((flags & END_STREAM) == 0) {
                                frame(WINDOW_UPDATE, 0, id, increment);
                            }
                        }
                        if ((flags & END_STREAM) != 0) {
                            respond(id, st);
                        }
                    }
                    case RST_STREAM -> streams.remove(id);
                    case GOAWAY -> {
                        return;
                    }
                    default -> {
                        // WINDOW_UPDATE, PRIORITY: nothing to do for answers this small
                    }
                }
            }
        }

        private void headersDone(int id, Exchange st) throws IOException {
            decoder.decode(ByteBuffer.wrap(st.headerBlock.toByteArray()), true,
                    (name, value) -> st.headers.put(name.toString(), value.toString()));
            if (st.endStream) {
                respond(id, st);
            }
        }

        private void respond(int id, Exchange st) throws IOException {
            streams.remove(id);
            http2Requests.incrementAndGet();
            Request r = Request.of(st.headers.get(":method"), st.headers.get(":path"), st.headers,
                    st.body.toByteArray());
            Reply reply = answer(r);
            byte[] body = reply.body();
            ByteBuffer block = ByteBuffer.allocate(MAX_FRAME);
            for (String[] h : List.of(new String[] {":status", String.valueOf(reply.status())},
                    new String[] {"content-type", "application/json"},
                    new String[] {"content-length", String.valueOf(body.length)})) {
                encoder.header(h[0], h[1]);
                if (!encoder.encode(block)) {
                    throw new IOException("response headers larger than one frame");
                }
            }
            block.flip();
            byte[] headerBytes = new byte[block.remaining()];
            block.get(headerBytes);
            frame(HEADERS, END_HEADERS | (body.length == 0 ? END_STREAM : 0), id, headerBytes);
            for (int at = 0; at < body.length; at += MAX_FRAME) {
                int n = Math.min(MAX_FRAME, body.length - at);
                frame(DATA, at + n == body.length ? END_STREAM : 0, id, java.util.Arrays.copyOfRange(body, at, at + n));
            }
        }

        private void frame(int type, int flags, int id, byte[] payload) throws IOException {
            ByteBuffer header = ByteBuffer.allocate(9);
            header.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length);
            header.put((byte) type).put((byte) flags).putInt(id);
            out.write(header.array());
            out.write(payload);
            out.flush();
        }
    }
}
