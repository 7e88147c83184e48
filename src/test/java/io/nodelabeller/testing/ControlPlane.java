package io.nodelabeller.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Kubernetes control plane on loopback for the tests that need the API server's own verdict: etcd and
 * kube-apiserver (and, for the admission policies' type checking, kube-controller-manager), started from the binaries
 * of a Kubernetes release.
 * <p>
 * Where the binaries are: {@code -Dkube.assets=DIR} (Maven passes it on to the tests), default {@code ../shared/kube};
 * the layout is {@code DIR/k8s/<version>-linux-<arch>/{etcd,kube-apiserver,kube-controller-manager}} (the one
 * fabric8's kube-api-test downloads to), the newest version there is taken. Without them a test is skipped with a
 * warning, and fails under {@code CI=true}.
 * <p>
 * The API server runs as a cluster's does for this agent: Node and RBAC authorization, the NodeRestriction and
 * ValidatingAdmissionPolicy admission plugins, service-account tokens signed by its own key (pod-bound tokens carry
 * the node's name), its own serving certificate. The test's administrator authenticates with a static token in group
 * {@code system:masters}. {@code emulatedVersion} (e.g. "1.33") makes it serve as that older release does.
 * One control plane per version is started per test JVM, on first use, and stopped when the JVM exits; tests share it
 * and keep apart by the names of the nodes they create.
 */
public final class ControlPlane {

    private static final Map<String, ControlPlane> SHARED = new HashMap<>();
    /** The users with a static token (user → groups): kubelets as their client certificates name them, a person. */
    private static final Map<String, String> STATIC_USERS = Map.of("system:node:n1", "system:nodes",
            "system:node:n2", "system:nodes", "labeller@example.com", "");
    private static final Duration READY = Duration.ofSeconds(60);

    private final Path bin;
    private final Path dir;
    private final String emulatedVersion;
    private final String adminToken = UUID.randomUUID().toString();
    private final int etcdPort;
    private final int apiPort;
    private final List<Process> processes = new ArrayList<>();
    private Process etcd;
    private Process apiServer;
    private Process controllerManager;
    private KubernetesClient admin;

    private ControlPlane(Path bin, String emulatedVersion) throws IOException {
        this.bin = bin;
        this.emulatedVersion = emulatedVersion;
        this.dir = Files.createTempDirectory("control-plane-");
        this.etcdPort = freePort();
        this.apiPort = freePort();
    }

    /** The shared control plane serving as the newest release ({@code null}) or as {@code emulatedVersion}. */
    public static synchronized ControlPlane shared(String emulatedVersion) {
        String key = emulatedVersion == null ? "" : emulatedVersion;
        ControlPlane cp = SHARED.get(key);
        if (cp == null) {
            try {
                cp = new ControlPlane(binaries(), emulatedVersion);
                cp.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            SHARED.put(key, cp);
            ControlPlane started = cp;
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop));
        }
        return cp;
    }

    /** A control plane of the caller's own (a test that restarts it), which the caller stops with {@link #stop()}. */
    public static ControlPlane start(String emulatedVersion) {
        try {
            ControlPlane cp = new ControlPlane(binaries(), emulatedVersion);
            cp.start();
            return cp;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ControlPlane shared() {
        return shared(null);
    }

    /** The folder of the newest release's binaries; skips the test (fails it under CI=true) when there is none. */
    static Path binaries() {
        return binaries(Path.of(System.getProperty("kube.assets", "../shared/kube")));
    }

    /** The newest release's folder under {@code assets}; skips the test (fails it under CI=true) when there is none. */
    static Path binaries(Path assets) {
        String arch = System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64";
        Path found = null;
        if (Files.isDirectory(assets.resolve("k8s"))) {
            try (Stream<Path> versions = Files.list(assets.resolve("k8s"))) {
                found = versions.filter(p -> p.getFileName().toString().endsWith("-linux-" + arch))
                        .filter(p -> Files.isExecutable(p.resolve("kube-apiserver")) && Files.isExecutable(p.resolve("etcd")))
                        .max(Comparator.comparing(p -> version(p.getFileName().toString()))).orElse(null);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Prerequisites.require(found != null, "no Kubernetes control plane binaries under " + assets.toAbsolutePath()
                + "/k8s/<version>-linux-" + arch + " (set -Dkube.assets=DIR): test against a real API server");
        return found;
    }

    /** "1.36.2-linux-amd64" as a number that sorts as versions do. */
    private static long version(String name) {
        String[] parts = name.split("-")[0].split("\\.");
        long v = 0;
        for (int i = 0; i < 3; i++) {
            v = v * 10_000 + (i < parts.length ? Long.parseLong(parts[i].replaceAll("\\D.*", "")) : 0);
        }
        return v;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void start() throws IOException {
        KeyPair keys;
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            keys = g.generateKeyPair();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        int peerPort = freePort();
        write("sa.key", pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        write("sa.pub", pem("PUBLIC KEY", keys.getPublic().getEncoded()));
        StringBuilder tokens = new StringBuilder(adminToken + ",test-admin,test-admin,\"system:masters\"\n");
        STATIC_USERS.forEach((user, groups) -> tokens.append(staticToken(user)).append(',').append(user).append(',').append(user)
                .append(",\"").append(groups).append("\"\n"));
        write("tokens.csv", tokens.toString());
        etcd = launch("etcd", List.of(bin.resolve("etcd").toString(), "--data-dir", dir.resolve("etcd").toString(),
                "--name", "default", "--listen-client-urls", "http://127.0.0.1:" + etcdPort,
                "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "default=http://127.0.0.1:" + peerPort, "--unsafe-no-fsync", "--listen-metrics-urls", ""));
        startApiServer();
    }

    private void startApiServer() throws IOException {
        List<String> args = new ArrayList<>(List.of(bin.resolve("kube-apiserver").toString(),
                "--bind-address=127.0.0.1", "--secure-port=" + apiPort, "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--cert-dir=" + dir.resolve("certs"), "--token-auth-file=" + dir.resolve("tokens.csv"),
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-account-key-file=" + dir.resolve("sa.pub"),
                "--service-account-signing-key-file=" + dir.resolve("sa.key"),
                "--api-audiences=https://kubernetes.default.svc", "--authorization-mode=Node,RBAC",
                "--enable-admission-plugins=NodeRestriction,ValidatingAdmissionPolicy",
                "--service-cluster-ip-range=10.96.0.0/12", "--endpoint-reconciler-type=none"));
        if (emulatedVersion != null) {
            args.add("--emulated-version=" + emulatedVersion);
        }
        apiServer = launch("kube-apiserver", args);
        awaitReady();
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            if (!apiServer.isAlive() || !etcd.isAlive()) {
                throw new IllegalStateException("the control plane stopped while starting:\n" + logs());
            }
            if (Files.exists(dir.resolve("certs/apiserver.crt"))) {
                try (KubernetesClient c = client(adminToken)) {
                    String ready = c.raw("/readyz");
                    if ("ok".equals(ready)) {
                        return;
                    }
                } catch (RuntimeException e) {
                    // not serving yet
                }
            }
            sleep(200);
        }
        throw new IllegalStateException("kube-apiserver not ready in " + READY + ":\n" + logs());
    }

    /**
     * kube-controller-manager with only the ValidatingAdmissionPolicy status controller: it type-checks each policy
     * against the schemas of what it matches and writes the warnings to {@code status.typeChecking}.
     */
    public synchronized void startTypeChecking() {
        if (controllerManager != null) {
            return;
        }
        try {
            Path kubeconfig = kubeconfig(dir, "kcm", adminToken);
            controllerManager = launch("kube-controller-manager", List.of(bin.resolve("kube-controller-manager").toString(),
                    "--kubeconfig=" + kubeconfig, "--controllers=validatingadmissionpolicy-status-controller",
                    "--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=false"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops kube-apiserver and starts it again on the same port and etcd (its watch cache starts anew). */
    public synchronized void restartApiServer() {
        restartApiServer(java.time.Duration.ZERO);
    }

    /** The same, with the server down for {@code down} before it starts again (an outage). */
    public synchronized void restartApiServer(java.time.Duration down) {
        apiServer.destroy();
        try {
            apiServer.waitFor(30, TimeUnit.SECONDS);
            Thread.sleep(down.toMillis());
            startApiServer();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Process launch(String name, List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile()).start();
        processes.add(p);
        return p;
    }

    /** The last lines of each component's log. */
    public String logs() {
        StringBuilder out = new StringBuilder();
        for (String name : List.of("etcd", "kube-apiserver", "kube-controller-manager")) {
            Path log = dir.resolve(name + ".log");
            if (Files.exists(log)) {
                try {
                    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                    out.append("--- ").append(name).append('\n')
                            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()))).append('\n');
                } catch (IOException e) {
                    out.append("--- ").append(name).append(": ").append(e).append('\n');
                }
            }
        }
        return out.toString();
    }

    /** Stops every component and deletes its data. */
    public synchronized void stop() {
        if (admin != null) {
            admin.close();
        }
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        deleteTree(dir);
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp folder left behind
        }
    }

    /** https://127.0.0.1:PORT */
    public String url() {
        return "https://127.0.0.1:" + apiPort;
    }

    /** The API server's serving certificate, PEM (the CA a pod's service account mount would carry). */
    public String caPem() {
        try {
            return Files.readString(dir.resolve("certs/apiserver.crt"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client of the test's administrator (group system:masters). Shared: do not close it. */
    public synchronized KubernetesClient admin() {
        if (admin == null) {
            admin = client(adminToken);
        }
        return admin;
    }

    /** The static token of {@code user} (a kubelet "system:node:n1" or "n2", "labeller@example.com"), or null. */
    public String staticToken(String user) {
        return STATIC_USERS.containsKey(user) ? "static-" + Integer.toHexString(user.hashCode()) + "-" + adminToken : null;
    }

    /** A new client that authenticates with {@code token}; the caller closes it. */
    public KubernetesClient client(String token) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url()).withOauthToken(token)
                .withCaCertData(Base64.getEncoder().encodeToString(caPem().getBytes(StandardCharsets.US_ASCII)))
                .withRequestTimeout(30_000).withConnectionTimeout(10_000).build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** A kubeconfig file in {@code dir} named {@code name} that authenticates with {@code token}. */
    public Path kubeconfig(Path dir, String name, String token) throws IOException {
        Path file = dir.resolve(name + ".kubeconfig");
        String ca = Base64.getEncoder().encodeToString(caPem().getBytes(StandardCharsets.US_ASCII));
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: test, cluster: {server: "%s", certificate-authority-data: %s}}]
                contexts: [{name: test, context: {cluster: test, user: agent}}]
                current-context: test
                users: [{name: agent, user: {token: "%s"}}]
                """.formatted(url(), ca, token));
        return file;
    }

    /** Creates the Node {@code name} (labelled with its hostname, as the kubelet registers it) unless it exists. */
    public Node node(String name) {
        Node existing = admin().nodes().withName(name).get();
        if (existing != null) {
            return existing;
        }
        return admin().nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name).endMetadata().build()).create();
    }

    /** Creates the namespace {@code name} unless it exists (as {@code kubectl create namespace} before a Helm install). */
    public void namespace(String name) {
        if (admin().namespaces().withName(name).get() == null) {
            admin().namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName(name)
                    .endMetadata().build()).create();
        }
    }

    /**
     * A token of service account {@code namespace/account} as a DaemonSet pod on {@code nodeName} gets it: bound to a
     * Pod scheduled there (it stays Pending: no kubelet runs), so that the API server puts the node's name into the
     * token's user info. {@code nodeName} null: a token bound to nothing (no node name in it).
     */
    public String podBoundToken(String namespace, String account, String nodeName) {
        KubernetesClient c = admin();
        namespace(namespace);
        if (c.serviceAccounts().inNamespace(namespace).withName(account).get() == null) {
            c.serviceAccounts().inNamespace(namespace).resource(new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                    .withNewMetadata().withName(account).endMetadata().build()).create();
        }
        TokenRequestBuilder request = new TokenRequestBuilder().withNewSpec().withAudiences("https://kubernetes.default.svc")
                .withExpirationSeconds(3600L).endSpec();
        if (nodeName != null) {
            node(nodeName);
            Pod pod = c.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata()
                    .withGenerateName(account + "-").endMetadata().withNewSpec().withNodeName(nodeName)
                    .withServiceAccountName(account).addNewContainer().withName("agent").withImage("node-labeller:test")
                    .endContainer().endSpec().build()).create();
            request.editSpec().withNewBoundObjectRef().withApiVersion("v1").withKind("Pod")
                    .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).endBoundObjectRef().endSpec();
        }
        TokenRequest issued = c.serviceAccounts().inNamespace(namespace).withName(account).tokenRequest(request.build());
        return issued.getStatus().getToken();
    }

    private void write(String name, String content) throws IOException {
        Files.writeString(dir.resolve(name), content);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    /** Thread.sleep, an interrupt turned into an exception that fails the test. */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
