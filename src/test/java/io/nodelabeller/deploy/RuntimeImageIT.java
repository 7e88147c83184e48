package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Builds the container's Java runtime with the Dockerfile's own script (bin/build-runtime.sh: jdeps, jlink,
 * AppCDS) from the JDK running the tests, then runs the shaded jar on it. A module that jdeps misses, a flag in
 * bin/jvm.options the JVM rejects, or a class-data archive that does not map shows up here, without a container
 * engine. Needs target/node-labeller.jar, so failsafe runs it after {@code package}.
 */
class RuntimeImageIT {

    private static final Path JAR = Path.of(System.getProperty("nodeLabeller.jar", "target/node-labeller.jar"));
    private static final Path OUT = Path.of("target/runtime-it");
    private static final Path JDK = Path.of(System.getProperty("java.home"));

    @TempDir
    static Path tmp;

    @BeforeAll
    static void buildRuntime() throws Exception {
        if (!Files.isExecutable(JDK.resolve("bin/jlink")) || !Files.isRegularFile(JDK.resolve("jmods/java.base.jmod"))) {
            String why = "RuntimeImageIT SKIPPED: " + JDK + " has no jlink/jmods, so the container runtime was NOT checked";
            System.err.println("*".repeat(why.length()) + "\n" + why + "\n" + "*".repeat(why.length()));
            if ("true".equals(System.getenv("CI"))) {
                fail(why + " (CI=true: a full JDK 17 is required)");
            }
            Assumptions.abort(why);
        }
        assertTrue(Files.isRegularFile(JAR), "no shaded jar at " + JAR + " (failsafe runs after package)");
        Run build = run(List.of("sh", "bin/build-runtime.sh", JAR.toString(), OUT.toString()),
                Map.of("JAVA_HOME", JDK.toString()), 300);
        assertEquals(0, build.code(), "build-runtime.sh failed:\n" + build.out());
    }

    /** The runtime's java with the production flags, but JNA/temp files in a test directory. */
    private static List<String> runtimeJava(String... more) {
        List<String> cmd = new ArrayList<>(List.of(OUT.resolve("runtime/bin/java").toString(),
                "@" + OUT.resolve("node-labeller.args").toAbsolutePath()));
        cmd.addAll(List.of(more));
        return cmd;
    }

    @Test
    void printOnTheRuntimeMatchesTheFullJdkAndUsesTheArchive() throws Exception {
        String root = Hosts.root("cloud-vm").toString();
        // -Xshare:on: the JVM refuses to start unless the AppCDS archive maps (same runtime, jar, flags).
        String noNvml = "/nonexistent/libnvidia-ml.so.1"; // never a GPU machine's real driver
        Run slim = run(runtimeJava("print", "--no-timestamp", "--host-root", root, "--nvml-library", noNvml),
                Map.of("JAVA_TOOL_OPTIONS", "-Xshare:on -Djna.tmpdir=" + tmp), 60);
        Run full = run(List.of(JDK.resolve("bin/java").toString(), "-jar", JAR.toString(),
                "print", "--no-timestamp", "--host-root", root, "--nvml-library", noNvml), Map.of(), 60);
        assertEquals(0, full.code(), full.out());
        assertEquals(0, slim.code(), slim.out());
        assertTrue(slim.stdout().contains("feature.node.kubernetes.io/kernel-version.full="), slim.out());
        assertEquals(full.stdout(), slim.stdout());
    }

    /**
     * An image builder copies the runtime between stages with whole-second times, rounding (buildah without
     * --layers) or truncating (buildah --layers, docker); the archive records the jar's time in seconds and
     * -Xshare:on refuses a jar whose time differs ("A jar file is not the one used while building the shared archive
     * file"). The build gives the jar a whole second, so the image starts after either copy.
     */
    @Test
    void theArchiveMatchesAfterACopyThatRoundsOrTruncatesTimes() throws Exception {
        Path jar = OUT.resolve("lib/node-labeller.jar");
        java.nio.file.attribute.FileTime built = Files.getLastModifiedTime(jar);
        assertEquals(0, built.toInstant().getNano(), "the jar's time has a fraction of a second: " + built);
        try {
            for (long millis : List.of(Math.round(built.toMillis() / 1000.0) * 1000, built.toMillis() / 1000 * 1000)) {
                Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(millis));
                Run r = run(runtimeJava("--version"), Map.of("JAVA_TOOL_OPTIONS", "-Xshare:on -Djna.tmpdir=" + tmp), 60);
                assertEquals(0, r.code(), r.out());
            }
        } finally {
            Files.setLastModifiedTime(jar, built);
        }
    }

    /**
     * The image's operating system is bin/minimal-root.sh's: glibc, libgcc_s, libstdc++ and zlib from Debian's
     * packages, nothing else. The runtime prints the labels of the gpu-server tree on that root alone, read-only, as
     * user 65534, with the archive mapped (-Xshare:on), under bubblewrap as a pod would run it; the image itself is
     * built and checked by .ci/run (bin/check-image.sh). Needs dpkg and bwrap (Debian's bubblewrap).
     */
    @Test
    void theRuntimeRunsOnTheImagesMinimalRoot() throws Exception {
        boolean tools = Files.isExecutable(Path.of("/usr/bin/bwrap")) && Files.isExecutable(Path.of("/usr/bin/dpkg-query"));
        io.nodelabeller.testing.Prerequisites.require(tools,
                "no bwrap or dpkg-query: the runtime was not run on the image's minimal root");
        Path root = tmp.resolve("minimal-root");
        Run made = run(List.of("sh", "bin/minimal-root.sh", root.toString(), "libc6", "libgcc-s1", "libstdc++6", "zlib1g"),
                Map.of(), 60);
        assertEquals(0, made.code(), made.out());
        // the runtime and the host tree at their own paths, as the image has the runtime at /opt/node-labeller
        Path out = OUT.toAbsolutePath();
        Path host = Hosts.root("gpu-server");
        Files.createDirectories(root.resolve(out.toString().substring(1)));
        Files.createDirectories(root.resolve("host"));
        List<String> cmd = new ArrayList<>(List.of("bwrap", "--ro-bind", root.toString(), "/", "--tmpfs", "/tmp",
                "--proc", "/proc", "--dev", "/dev", "--ro-bind", out.toString(), out.toString(), "--ro-bind",
                host.toString(), "/host", "--unshare-user", "--uid", "65534", "--gid", "65534", "--unshare-pid",
                "--die-with-parent", "--clearenv", "--setenv", "JAVA_TOOL_OPTIONS", "-Xshare:on", "--"));
        cmd.addAll(runtimeJava("print", "--no-timestamp", "--host-root", "/host"));
        Run r = run(cmd, Map.of(), 60);
        assertEquals(0, r.code(), r.out());
        assertTrue(r.stdout().contains("feature.node.kubernetes.io/pci-0302_10de.present=true"), r.out());
        assertTrue(r.stdout().contains("nvidia.com/gpu.present=true"), r.out());
    }

    /**
     * NVML through JNA on the runtime (the fake libnvidia-ml of the tests): JNA's native stub comes from the
     * runtime, taken out of the jar at build time, not from a temp file written at every start.
     */
    @Test
    void jnaUsesTheRuntimesOwnStub() throws Exception {
        Path nvml = io.nodelabeller.testing.FakeNvml.nvml().gpus(1, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("nvml"));
        Path jnaTmp = Files.createDirectories(tmp.resolve("jna-tmp"));
        Run r = run(runtimeJava("print", "--no-timestamp", "--host-root", Hosts.root("gpu-server").toString(),
                "--nvml-library", nvml.toString()),
                Map.of("JAVA_TOOL_OPTIONS", "-Xshare:on -Djna.debug_load.jna=true -Djna.tmpdir=" + jnaTmp), 60);
        assertEquals(0, r.code(), r.out());
        assertTrue(r.stdout().contains("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB"), r.out());
        // JNA says where it found its stub (java.util.logging on stderr, with jna.debug_load.jna)
        assertTrue(r.out().contains("Found jnidispatch at " + OUT.resolve("lib/native/libjnidispatch.so").toAbsolutePath()),
                r.out());
    }

    /**
     * Without {@code --nvml-library}, {@code libnvidia-ml.so.1} is found by the dynamic linker (here through
     * {@code LD_LIBRARY_PATH}; on a GPU node through the ld.so cache the NVIDIA Container Toolkit updates), and with
     * the production flags loading it starts no process: JNA runs {@code /sbin/ldconfig -p} at its first library
     * load unless {@code jna.platform.library.path} is set (com.sun.jna.NativeLibrary's static initialiser).
     */
    @Test
    void nvmlIsFoundByNameAndLoadingItStartsNoProcess() throws Exception {
        Path nvml = io.nodelabeller.testing.FakeNvml.nvml().gpus(1, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("nvml-by-name"));
        Run r = run(runtimeJava("print", "--no-timestamp", "--host-root", Hosts.root("gpu-server").toString()),
                Map.of("JAVA_TOOL_OPTIONS", "-Xshare:on -verbose:class -Djna.tmpdir=" + tmp,
                        "LD_LIBRARY_PATH", nvml.getParent().toString()), 60);
        assertEquals(0, r.code(), r.out());
        assertTrue(r.stdout().contains("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB"), r.out());
        // the class-load lines are there (else the next check could never fail), and no process was started
        assertTrue(r.stdout().contains(" com.sun.jna.NativeLibrary "), r.out());
        assertTrue(!r.stdout().contains(" java.lang.ProcessImpl "), "a process was started:\n" + r.out());
    }

    /**
     * The daemon with the production flags (bin/jvm.options, -Xshare:on: the archive must map) against a loopback
     * API server: it labels its node, and SIGTERM ends it with exit 0. The API server is configured from the
     * environment, as in a pod (no kubeconfig).
     */
    @Test
    void runWithTheProductionFlagsLabelsItsNodeAndStopsOnSigterm() throws Exception {
        runDaemon(false, List.of("--host-root", Hosts.root("cloud-vm").toString(), "--nvml-library",
                "/nonexistent/libnvidia-ml.so.1"), "", "feature.node.kubernetes.io/kernel-version.full");
    }

    /**
     * The archive holds what the daemon loads in a pod: {@code run} over TLS with the server's certificate as its
     * CA (a service account's ca.crt), the client choosing HTTP/2 by ALPN and watching over WebSocket as it does with
     * kube-apiserver, on the gpu-server tree with the fake NVML. The classes of each of those paths are mapped from
     * the archive, none of ours, fabric8's or JNA's parsed from the jar (but for an error's); fabric8's HTTP-watch
     * fallback, which the agent never takes, did not run in the training.
     */
    @Test
    void theArchiveHoldsWhatRunLoadsInAPod() throws Exception {
        Path nvml = io.nodelabeller.testing.FakeNvml.nvml().gpus(1, io.nodelabeller.testing.FakeNvml.a100_80gb())
                .install(tmp.resolve("nvml-pod"));
        Path loaded = tmp.resolve("class-load.log");
        runDaemon(true, List.of("--host-root", Hosts.root("gpu-server").toString(), "--nvml-library", nvml.toString()),
                " -Xlog:class+load=info:file=" + loaded, "nvidia.com/gpu.product"); // from NVML
        Map<String, String> source = new HashMap<>();
        // [0.123s][info][class,load] java.lang.Object source: shared objects file
        java.util.regex.Pattern classLoad = java.util.regex.Pattern.compile("\\] (\\S+) source: (.*)$");
        for (String line : Files.readAllLines(loaded)) {
            java.util.regex.Matcher m = classLoad.matcher(line);
            if (m.find()) {
                source.put(m.group(1), m.group(2));
            }
        }
        for (String c : List.of(
                "sun.security.ssl.SSLEngineImpl",                                // TLS
                "jdk.internal.net.http.Http2Connection",                         // HTTP/2, chosen by ALPN
                "jdk.internal.net.http.websocket.WebSocketImpl",                 // the watch's WebSocket
                "io.fabric8.kubernetes.client.dsl.internal.WatchConnectionManager",
                "io.nodelabeller.publish.NodePatch",                             // the JSON Patch of the node
                "io.nodelabeller.publish.Install",                               // the install's write scope
                "io.nodelabeller.label.WriteScope",
                "io.nodelabeller.nvml.NvmlStructs$PciInfo",                      // NVML through JNA
                "com.sun.jna.Structure")) {
            assertEquals("shared objects file", source.get(c), c + " (loaded from the archive?)");
        }
        // logging was set up before any other thread asked for a logger: no thread got SLF4J's recording stand-in, so
        // fabric8 did not find trace on and install its request logger (which made this check fail now and then, when
        // the training or this run built the client while logging was being set up)
        assertFalse(source.containsKey("org.slf4j.helpers.SubstituteLogger"), "a logger was asked for during set-up");
        assertFalse(source.containsKey("io.fabric8.kubernetes.client.http.HttpLoggingInterceptor$HttpLogger"),
                "fabric8 logs every request");
        // what a pod loads at start and at rest; an error's classes (a failed request, a watch cut at SIGTERM) may
        // come from the jar: the training runs no errors
        List<String> fromJar = source.entrySet().stream().filter(e -> e.getValue().contains("node-labeller.jar"))
                .map(Map.Entry::getKey).filter(c -> !c.contains("Exception") && !c.contains("Error")).sorted().toList();
        assertTrue(fromJar.stream().noneMatch(c -> c.startsWith("io.nodelabeller.") || c.startsWith("io.fabric8.")
                || c.startsWith("com.sun.jna.")), "parsed from the jar, not mapped from the archive: " + fromJar);
        Run archive = run(List.of(OUT.resolve("runtime/bin/java").toString(), "@" + OUT.resolve("jvm.options").toAbsolutePath(),
                "-XX:SharedArchiveFile=" + OUT.resolve("lib/node-labeller.jsa"), "-XX:+PrintSharedArchiveAndExit",
                "-XX:+PrintSharedDictionary", "-cp", OUT.resolve("lib/node-labeller.jar").toString()), Map.of(), 60);
        assertTrue(archive.stdout().contains(" io.fabric8.kubernetes.client.dsl.internal.WatchConnectionManager "),
                archive.out());
        // the training's watches upgraded to WebSocket: no failed handshake, no code of the HTTP watch ran (the
        // class itself is loaded either way, when fabric8's watch method is verified)
        assertTrue(!archive.stdout().contains("io.fabric8.kubernetes.client.http.WebSocketHandshakeException")
                && !archive.stdout().contains("io.fabric8.kubernetes.client.dsl.internal.WatchHTTPManager$$Lambda"),
                "fabric8's HTTP-watch fallback was trained into the archive");
    }

    /**
     * {@code run} on the runtime with the production flags and {@code -Xshare:on} (plus {@code toolOptions}) against
     * a loopback mock API server given by the environment, as in a pod; over TLS, the server's self-signed
     * certificate is the CA the agent trusts. Waits until the node has {@code label}, lets a cycle at rest pass (the
     * node read from its watch, nothing to patch), then SIGTERM: exit 0 within 30 s.
     */
    private static void runDaemon(boolean tls, List<String> hostArgs, String toolOptions, String label) throws Exception {
        MockWebServer web = new MockWebServer();
        KubernetesMockServer server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(), web,
                new HashMap<>(), new io.nodelabeller.testing.NodeCrudDispatcher(), tls);
        server.init(InetAddress.getLoopbackAddress(), 0);
        server.expectCustomResource(TestKubeconfig.NODE_FEATURE_RULE_CRD); // no objects, as a GPU Operator cluster
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("it-node").endMetadata().build()).create();
            // the install the DaemonSet names (NODE_LABELLER_INSTANCE), as the manifests create it
            client.rbac().clusterRoleBindings().resource(AdmissionPolicyTest.base().crb()).create();
            Path config = tmp.resolve("run.yaml");
            Files.writeString(config, "core:\n  sleepInterval: 1s\ndaemon:\n  port: 0\n");
            Path log = Files.createTempFile(tmp, "run", ".log");
            List<String> cmd = new ArrayList<>(runtimeJava("run", "--config", config.toString(), "--node-name", "it-node",
                    "--instance", "node-labeller"));
            cmd.addAll(hostArgs);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("JAVA_TOOL_OPTIONS", "-Xshare:on -Djna.tmpdir=" + tmp + toolOptions);
            pb.environment().putAll(TestKubeconfig.podEnvironment(client.getMasterUrl().toString(), tmp));
            if (tls) {
                pb.environment().put("KUBERNETES_CERTS_CA_FILE", web.getSelfSignedCertificate().certificatePath());
            }
            Process p = pb.start();
            try {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < end && p.isAlive()
                        && !client.nodes().withName("it-node").get().getMetadata().getLabels().containsKey(label)) {
                    Thread.sleep(200);
                }
                assertTrue(client.nodes().withName("it-node").get().getMetadata().getLabels().containsKey(label),
                        Files.readString(log));
                Thread.sleep(2000);
                p.destroy(); // SIGTERM
                assertTrue(p.waitFor(30, TimeUnit.SECONDS), "did not stop on SIGTERM:\n" + Files.readString(log));
                assertEquals(0, p.exitValue(), Files.readString(log));
            } finally {
                p.destroyForcibly();
            }
        } finally {
            server.destroy();
        }
    }

    @Test
    void checkConfigAcceptsTheShippedConfigMap() throws Exception {
        // The YAML path (Jackson, SnakeYAML) on the runtime, with the config the manifests ship.
        Path config = tmp.resolve("config.yaml");
        Files.writeString(config, Manifests.shippedConfig());
        Run r = run(runtimeJava("check-config", "--config", config.toString()),
                Map.of("JAVA_TOOL_OPTIONS", "-Djna.tmpdir=" + tmp), 60);
        assertEquals(0, r.code(), r.out());
    }

    @Test
    void daemonPathsWorkOnTheRuntime() throws Exception {
        // Same runtime and flags, with the test classes added so RuntimeSmoke can run inside it.
        String cp = OUT.resolve("lib/node-labeller.jar") + ":" + Path.of("target/test-classes");
        Path caCrt = clusterCa();
        Run r = run(List.of(OUT.resolve("runtime/bin/java").toString(), "@" + OUT.resolve("jvm.options").toAbsolutePath(),
                "-Djna.tmpdir=" + tmp, "-cp", cp, RuntimeSmoke.class.getName(), caCrt.toString()), Map.of(), 60);
        assertEquals(0, r.code(), r.out());
        assertTrue(r.stdout().contains("ec EC") && r.stdout().contains("TLSv1.3") && r.stdout().contains("jna 8 pid true"),
                r.out());
        // no public CA bundle in the runtime: the API server is trusted through the CA it is given, alone
        assertTrue(r.stdout().contains("jdk default CAs 0\n") && r.stdout().contains("fabric8 CAs with ca.crt 1\n"),
                r.out());
        assertTrue(Files.notExists(OUT.resolve("runtime/lib/security/cacerts")));
    }

    /** A self-signed CA certificate in PEM, as a cluster's ca.crt, made by the build JDK's keytool. */
    private static Path clusterCa() throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Path store = tmp.resolve("ca.p12");
        Path pem = tmp.resolve("ca.crt");
        Files.deleteIfExists(store);
        Files.deleteIfExists(pem);
        Run gen = run(List.of(keytool.toString(), "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname",
                "CN=kubernetes", "-ext", "bc:c", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit"), Map.of(), 60);
        assertEquals(0, gen.code(), gen.out());
        Run export = run(List.of(keytool.toString(), "-exportcert", "-rfc", "-alias", "ca", "-keystore",
                store.toString(), "-storepass", "changeit", "-file", pem.toString()), Map.of(), 60);
        assertEquals(0, export.code(), export.out());
        return pem;
    }

    @Test
    void runtimeHoldsOnlyTheModulesJdepsFound() throws Exception {
        Run r = run(List.of(OUT.resolve("runtime/bin/java").toString(), "--list-modules"), Map.of(), 30);
        assertEquals(0, r.code(), r.out());
        List<String> modules = r.stdout().lines().map(l -> l.replaceFirst("@.*", "")).sorted().toList();
        assertTrue(modules.contains("java.base") && modules.contains("java.net.http") && modules.contains("jdk.crypto.ec"),
                modules.toString());
        // The point of jlink: no compiler, no tools, no desktop-only extras beyond what the jar references.
        assertTrue(modules.stream().noneMatch(m -> m.equals("jdk.compiler") || m.equals("jdk.jshell")
                || m.equals("jdk.jcmd") || m.equals("java.scripting")), modules.toString());
    }

    record Run(int code, String stdout, String out) {
    }

    /** Runs a command, stdout and stderr to files (no pipe deadlock), killed after {@code seconds}. */
    static Run run(List<String> cmd, Map<String, String> env, int seconds) throws IOException, InterruptedException {
        Path stdout = Files.createTempFile(tmp, "out", ".txt");
        Path stderr = Files.createTempFile(tmp, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            fail("timed out after " + seconds + " s: " + cmd);
        }
        String o = Files.readString(stdout);
        return new Run(p.exitValue(), o, String.join(" ", cmd) + "\n--- stdout\n" + o + "--- stderr\n" + Files.readString(stderr));
    }
}
