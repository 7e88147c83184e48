import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The class-data-sharing training of bin/build-runtime.sh: runs node-labeller's {@code print} and its daemon
 * ({@code run}) on the runtime being built, records every class they load ({@code -XX:DumpLoadedClassList}), and
 * writes the union, from which the script dumps the AppCDS archive. The daemon needs a Kubernetes API server and the
 * image build has none, so this program is one for the length of the training: HTTPS on loopback with a key made for
 * it by keytool (so the TLS classes are trained too), a bearer token, and the few requests the agent makes for its
 * Node (GET, LIST, watch, PATCH; Kubernetes API conventions: k8s.io/apiserver) and the NodeFeatureRule objects (an
 * empty LIST, a watch). After the first PATCH and a few 1 s
 * cycles, it reads the agent's /metrics, /healthz and /readyz and stops it with SIGTERM, as the kubelet would.
 *
 * <p>Run by the build JDK in source-file mode (no compile step, nothing of it in the image):
 * {@code java bin/CdsTraining.java RUNTIME_JAVA JVM_OPTIONS JAR CLASSLIST}. Every wait is bounded; it fails (exit 1,
 * with the agent's output) rather than write a partial list.
 */
public class CdsTraining {

    private static final String NODE = "cds-training";
    private static final String TOKEN = "cds-training-token";
    private static final Duration FIRST_PATCH = Duration.ofSeconds(90);
    private static final int CYCLES_AFTER_PATCH = 4;

    private final AtomicInteger resourceVersion = new AtomicInteger(100);
    private final AtomicInteger patches = new AtomicInteger();
    private final CountDownLatch patched = new CountDownLatch(1);
    private final CountDownLatch stop = new CountDownLatch(1);

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: java CdsTraining.java RUNTIME_JAVA JVM_OPTIONS JAR CLASSLIST");
            System.exit(2);
        }
        Path work = Files.createTempDirectory("cds-training");
        try {
            new CdsTraining().train(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), work);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private void train(Path java, Path options, Path jar, Path classList, Path work) throws Exception {
        Path config = work.resolve("training.yaml");
        int agentPort = freePort();
        Files.writeString(config, "core:\n  sleepInterval: 1s\ndaemon:\n  port: " + agentPort + "\n");

        // print: the one-shot path (config file, every source on this build machine's own host)
        Path printList = work.resolve("print.lst");
        Process print = agent(java, options, jar, printList, work, List.of(), "print", "--no-timestamp",
                "--config", config.toString());
        finish(print, work, "print");

        // run: the daemon against this loopback API server until it has patched its node and cycled a few times
        Path keystore = keyPair(work);
        HttpsServer api = apiServer(keystore);
        Path runList = work.resolve("run.lst");
        try {
            String master = "https://127.0.0.1:" + api.getAddress().getPort();
            List<String> env = List.of("KUBERNETES_MASTER=" + master, "KUBERNETES_AUTH_TOKEN=" + TOKEN,
                    "KUBERNETES_CERTS_CA_FILE=" + work.resolve("ca.crt"), "HOME=" + work);
            Process run = agent(java, options, jar, runList, work, env, "run", "--node-name", NODE,
                    "--config", config.toString());
            if (!patched.await(FIRST_PATCH.toSeconds(), TimeUnit.SECONDS)) {
                run.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("the daemon did not patch its node within " + FIRST_PATCH.toSeconds() + " s", work, "run");
            }
            Thread.sleep(CYCLES_AFTER_PATCH * 1000L);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (String path : List.of("/metrics", "/healthz", "/readyz")) {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agentPort + path))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
            }
            run.destroy(); // SIGTERM
            finish(run, work, "run");
        } finally {
            stop.countDown();
            api.stop(0);
            ((ExecutorService) api.getExecutor()).shutdownNow();
        }

        Set<String> lines = new LinkedHashSet<>(Files.readAllLines(printList));
        lines.addAll(Files.readAllLines(runList));
        Files.write(classList, lines);
        System.out.println("cds training: " + lines.stream().filter(l -> !l.startsWith("@")).count()
                + " classes (print, and run with " + patches.get() + " node patches)");
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

    private HttpsServer apiServer(Path keystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, TOKEN.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, TOKEN.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "training-api");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", exchange -> {
            try (exchange) {
                answer(exchange);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
        return server;
    }

    /** NFD's NodeFeatureRule objects, which run reads with one LIST and one watch. */
    private static final String RULES = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules";

    private void answer(HttpExchange ex) throws IOException, InterruptedException {
        ex.getRequestBody().readAllBytes();
        String method = ex.getRequestMethod();
        String path = ex.getRequestURI().getPath();
        String query = ex.getRequestURI().getRawQuery() == null ? "" : ex.getRequestURI().getRawQuery();
        if (!("Bearer " + TOKEN).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
            send(ex, 401, status(401, "Unauthorized", "no or wrong bearer token"));
        } else if (path.equals("/api/v1/nodes/" + NODE) && method.equals("GET")) {
            send(ex, 200, node());
        } else if (path.equals("/api/v1/nodes/" + NODE) && method.equals("PATCH")) {
            resourceVersion.incrementAndGet();
            patches.incrementAndGet();
            send(ex, 200, node());
            patched.countDown();
        } else if ((path.equals("/api/v1/nodes") || path.equals(RULES)) && method.equals("GET") && query.contains("watch=true")) {
            if (ex.getRequestHeaders().containsKey("Upgrade")) {
                // no WebSocket here: 503 is what fabric8 takes as "watch over a streamed GET instead"
                send(ex, 503, status(503, "ServiceUnavailable", "websocket watches are not served here"));
                return;
            }
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0); // chunked: one JSON event per line until the watch ends
            try (OutputStream out = ex.getResponseBody()) {
                String kind = path.equals(RULES) ? "\"kind\":\"NodeFeatureRule\",\"apiVersion\":\"nfd.k8s-sigs.io/v1alpha1\""
                        : "\"kind\":\"Node\",\"apiVersion\":\"v1\"";
                String bookmark = "{\"type\":\"BOOKMARK\",\"object\":{" + kind + ","
                        + "\"metadata\":{\"resourceVersion\":\"" + resourceVersion.get() + "\"}}}\n";
                out.write(bookmark.getBytes(StandardCharsets.UTF_8));
                out.flush();
                stop.await(FIRST_PATCH.toSeconds() + 30, TimeUnit.SECONDS);
            } catch (IOException clientWentAway) {
                // the agent closed its watch
            }
        } else if (path.equals(RULES) && method.equals("GET")) {
            // the NodeFeatureRule objects' informer: a cluster with NFD's CRD and no objects
            send(ex, 200, "{\"kind\":\"NodeFeatureRuleList\",\"apiVersion\":\"nfd.k8s-sigs.io/v1alpha1\",\"metadata\":"
                    + "{\"resourceVersion\":\"" + resourceVersion.get() + "\"},\"items\":[]}");
        } else if (path.equals("/api/v1/nodes") && method.equals("GET")) {
            send(ex, 200, "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                    + resourceVersion.get() + "\"},\"items\":[" + node() + "]}");
        } else {
            send(ex, 404, status(404, "NotFound", method + " " + path + " is not served here"));
        }
    }

    private String node() {
        return "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + NODE + "\",\"uid\":"
                + "\"00000000-0000-4000-8000-000000000001\",\"resourceVersion\":\"" + resourceVersion.get() + "\","
                + "\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"labels\":{\"kubernetes.io/hostname\":\"" + NODE
                + "\",\"kubernetes.io/os\":\"linux\"},\"annotations\":{}},\"spec\":{},\"status\":{\"capacity\":"
                + "{\"cpu\":\"2\",\"memory\":\"4Gi\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\""
                + message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
    }

    private static void send(HttpExchange ex, int code, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }
}
