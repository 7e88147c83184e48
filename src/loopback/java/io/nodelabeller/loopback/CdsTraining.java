package io.nodelabeller.loopback;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The class-data-sharing training of bin/build-runtime.sh: runs node-labeller's {@code print} and its daemon
 * ({@code run}) on the runtime being built, records every class they load ({@code -XX:DumpLoadedClassList}), and
 * writes the union, from which the script dumps the AppCDS archive. Every start maps the whole archive, and once its
 * file is cached most of it is resident, so every class in it costs memory whether it is used or not: the training
 * should make the daemon load what it loads on a node, no more and no less.
 *
 * <p>The daemon needs a Kubernetes API server and the image build has none: the {@link LoopbackApiServer} serves it
 * for the length of the training as kube-apiserver would in a pod — TLS with a key made for it, a bearer token,
 * HTTP/2 chosen by ALPN, watches over WebSocket; the agent's Node, its install's ClusterRoleBinding (which names what
 * it may write) and no NodeFeatureRule objects. After the first PATCH and a few 1 s cycles (the node then comes from
 * the watch, nothing left to change, as at rest on a node), it reads the agent's /metrics, /healthz and /readyz and
 * stops it with SIGTERM, as the kubelet would. It fails when the agent's requests did not take those paths (no HTTP/2,
 * a watch not over WebSocket): an archive trained on another path would hold classes the daemon does not use.
 *
 * <p>{@code print} reads the build machine's own host. The daemon does too, unless GPU_HOST_ROOT and NVML_LIBRARY
 * are given (bin/build-runtime.sh gives the tests' gpu-server host tree and their fake libnvidia-ml): then it reads
 * that host through NVML, so that the NVML path is trained, and the training fails if the node did not get
 * {@code nvidia.com/gpu.product} (a label only NVML gives).
 *
 * <p>{@code java -cp target/loopback-classes:$(cat target/loopback.classpath) io.nodelabeller.loopback.CdsTraining
 * RUNTIME_JAVA JVM_OPTIONS JAR CLASSLIST [GPU_HOST_ROOT NVML_LIBRARY]}. Every wait is bounded; it fails (exit 1, with
 * the agent's output) rather than write a partial list.
 */
public final class CdsTraining {

    private static final String NODE = "cds-training";
    private static final Duration FIRST_PATCH = Duration.ofSeconds(90);
    private static final int CYCLES_AFTER_PATCH = 4;

    private CdsTraining() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 6) {
            System.err.println("usage: CdsTraining RUNTIME_JAVA JVM_OPTIONS JAR CLASSLIST [GPU_HOST_ROOT NVML_LIBRARY]");
            System.exit(2);
        }
        List<String> gpuHost = args.length == 6 ? List.of("--host-root", args[4], "--nvml-library", args[5]) : List.of();
        Path work = Files.createTempDirectory("cds-training");
        int code;
        try {
            code = train(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), gpuHost, work);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        System.exit(code); // the server's event loop is not a daemon thread
    }

    private static int train(Path java, Path options, Path jar, Path classList, List<String> gpuHost, Path work)
            throws Exception {
        Path config = work.resolve("training.yaml");
        int agentPort = freePort();
        Files.writeString(config, "core:\n  sleepInterval: 1s\ndaemon:\n  port: " + agentPort + "\n");

        // print: the one-shot path (config file, every source on this build machine's own host)
        Path printList = work.resolve("print.lst");
        Process print = agent(java, options, jar, printList, work, List.of(), "print", "--no-timestamp",
                "--config", config.toString());
        if (!finish(print, work, "print")) {
            return 1;
        }

        // run: the daemon against the loopback API server until it has patched its node and cycled a few times
        String token = "cds-training-token";
        LoopbackApiServer.Tls tls = LoopbackApiServer.Tls.selfSigned(work);
        Path runList = work.resolve("run.lst");
        LoopbackApiServer.Protocols protocols;
        ObjectNode node;
        try (LoopbackApiServer api = new LoopbackApiServer(LoopbackApiServer.Options.plain().tls(tls, token)
                .bookmark(Duration.ofSeconds(1)))) {
            api.putNode(node());
            api.put(installBinding());
            List<String> env = List.of("KUBERNETES_MASTER=" + api.url(), "KUBERNETES_AUTH_TOKEN=" + token,
                    "KUBERNETES_CERTS_CA_FILE=" + tls.caPem(), "HOME=" + work);
            List<String> run = new ArrayList<>(List.of("run", "--node-name", NODE, "--instance", "node-labeller",
                    "--config", config.toString()));
            run.addAll(gpuHost);
            Process daemon = agent(java, options, jar, runList, work, env, run.toArray(String[]::new));
            if (!api.awaitPatches(1, FIRST_PATCH)) {
                daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return fail("the daemon did not patch its node within " + FIRST_PATCH.toSeconds() + " s (requests: "
                        + String.join(", ", api.requestLog()) + ")", work, "run");
            }
            Thread.sleep(CYCLES_AFTER_PATCH * 1000L);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (String path : List.of("/metrics", "/healthz", "/readyz")) {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agentPort + path))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
            }
            daemon.destroy(); // SIGTERM
            if (!finish(daemon, work, "run")) {
                return 1;
            }
            protocols = api.protocols();
            node = api.node(NODE);
            if (protocols.http2Requests() == 0 || protocols.webSocketWatches() == 0 || protocols.httpWatches() > 0) {
                return fail("the daemon did not talk to the API server as it does on a node (" + protocols
                        + "; in order: " + String.join(", ", api.requestLog()) + ")", work, "run");
            }
        }
        if (!gpuHost.isEmpty() && !node.path("metadata").path("labels").has("nvidia.com/gpu.product")) {
            return fail("the daemon did not label the GPU of " + gpuHost.get(1) + " through NVML (no "
                    + "nvidia.com/gpu.product)", work, "run");
        }

        Set<String> lines = new LinkedHashSet<>(Files.readAllLines(printList));
        lines.addAll(Files.readAllLines(runList));
        Files.write(classList, lines);
        System.out.println("cds training: " + lines.stream().filter(l -> !l.startsWith("@")).count()
                + " classes (print; run" + (gpuHost.isEmpty() ? "" : " on " + gpuHost.get(1) + " with its NVML") + ": "
                + protocols + ")");
        return 0;
    }

    /** The node as a kubelet registers it, with a uid, a creation time and its capacity and Ready condition. */
    private static ObjectNode node() {
        ObjectNode node = LoopbackApiServer.registeredNode(NODE);
        ((ObjectNode) node.get("metadata")).put("uid", "00000000-0000-4000-8000-000000000001")
                .put("creationTimestamp", "2026-01-01T00:00:00Z");
        node.putObject("spec");
        ObjectNode status = node.putObject("status");
        status.putObject("capacity").put("cpu", "2").put("memory", "4Gi");
        status.putArray("conditions").addObject().put("type", "Ready").put("status", "True");
        return node;
    }

    /** The install's ClusterRoleBinding, whose annotations say what the agent may write (manifests/base/common). */
    private static ObjectNode installBinding() {
        return (ObjectNode) LoopbackApiServer.readTree("""
                {"kind": "ClusterRoleBinding", "apiVersion": "rbac.authorization.k8s.io/v1",
                 "metadata": {"name": "node-labeller", "annotations": {
                   "node-labeller.io/label-domains": "", "node-labeller.io/nvidia-keys": "nvidia.com/gds.capable",
                   "node-labeller.io/denied-keys": "", "node-labeller.io/taints": "false",
                   "node-labeller.io/extended-resources": "false"}},
                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "node-labeller"},
                 "subjects": [{"kind": "ServiceAccount", "name": "node-labeller", "namespace": "node-labeller"}]}
                """);
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

    private static boolean finish(Process p, Path work, String name) throws Exception {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail(name + " did not end within 60 s", work, name);
            return false;
        }
        if (p.exitValue() != 0) {
            fail(name + " exited with " + p.exitValue(), work, name);
            return false;
        }
        return true;
    }

    private static int fail(String why, Path work, String name) throws IOException {
        System.err.println("cds training: " + why + "; its output:");
        System.err.println(Files.readString(work.resolve(name + ".log")));
        return 1;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
