package io.nodelabeller.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodelabeller.loopback.LoopbackApiServer;
import io.nodelabeller.testing.ClusterObjects;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code run} through a kube-apiserver restart, against the loopback API server, whose watch cache behaves as
 * kube-apiserver's (k8s.io/apiserver pkg/storage/cacher): a restarted server's cache starts at the current revision,
 * so both of the agent's watches (its Node's, the NodeFeatureRule objects') come back to a 410 "too old resource
 * version" — what fabric8's mock server in CRUD mode cannot do. A NodeFeatureRule object changes while the server is
 * down. The agent keeps every label through the outage, takes the change within seconds of the server's return with
 * one patch, logs no ERROR and no stack trace, and stops on SIGTERM with exit 0.
 */
class ApiServerRestartTest {

    private static final String NODE = "worker-1";
    private static final String RULE_LABEL = "example.com/rule-version";

    @TempDir
    Path tmp;

    private LoopbackApiServer server;
    private Process run;

    @AfterEach
    void stop() {
        if (run != null) {
            run.destroyForcibly();
        }
        if (server != null) {
            server.close();
        }
    }

    /** A NodeFeatureRule object whose rule matches every node and labels it with {@code version}. */
    private static ObjectNode rule(String version) throws Exception {
        return (ObjectNode) LoopbackApiServer.JSON.readTree(
                ClusterObjects.everyNodeRule("restart-policy", RULE_LABEL, version));
    }

    private Map<String, String> labels() {
        Map<String, String> out = new TreeMap<>();
        server.node(NODE).path("metadata").path("labels").fields()
                .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private JsonNode awaitNode(Predicate<Map<String, String>> done, Duration limit) throws Exception {
        long end = System.nanoTime() + limit.toNanos();
        while (!done.test(labels())) {
            assertTrue(System.nanoTime() < end, "not within " + limit + ": " + labels() + "\n" + Files.readString(log()));
            assertTrue(run.isAlive(), Files.readString(log()));
            Thread.sleep(100);
        }
        return server.node(NODE);
    }

    private Path log() {
        return tmp.resolve("run.log");
    }

    @Test
    void theAgentKeepsItsLabelsThroughARestartAndTakesAChangeMadeWhileTheServerWasDown() throws Exception {
        server = new LoopbackApiServer(LoopbackApiServer.Options.plain().bookmark(Duration.ofSeconds(1)));
        server.putNode(LoopbackApiServer.registeredNode(NODE));
        server.putRule(rule("v1"));

        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "core: {sleepInterval: 1s}\ndaemon: {port: %d}\npublish: {ruleChangeSpread: 0s}\n"
                .formatted(port));
        run = Cli.start(log(), "run", "--node-name", NODE,
                "--kubeconfig", TestKubeconfig.write(tmp, server.url()).toString(), "--config", cfg.toString(),
                "--host-root", Hosts.root("gpu-server").toString(), "--sources", "system,kernel");

        awaitNode(l -> "v1".equals(l.get(RULE_LABEL)), Duration.ofSeconds(60));
        Thread.sleep(3_000); // at rest: cycles find nothing to change
        Map<String, String> before = labels();
        long patches = server.patches();
        long watches = server.protocols().webSocketWatches();
        assertTrue(before.containsKey("feature.node.kubernetes.io/kernel-version.full"), before.toString());

        server.restart();
        server.putRule(rule("v2")); // kubectl apply while the agents cannot see the server
        Thread.sleep(4_000);        // cycles run meanwhile, their reads refused
        server.resume(true);        // the restarted server's watch cache starts now: older watches get 410

        awaitNode(l -> "v2".equals(l.get(RULE_LABEL)), Duration.ofSeconds(30));
        Thread.sleep(3_000);
        Map<String, String> after = labels();
        before.put(RULE_LABEL, "v2");
        assertEquals(before, after, "no label lost or changed but the rule's");
        assertEquals(patches + 1, server.patches(), "one patch: the changed rule's label");
        // both watches came back to a 410 (else this test did not see what it is about), then watched again
        List<String> log = server.requestLog();
        assertEquals(2, log.stream().filter(r -> r.startsWith("WebSocket ") && r.endsWith(" 410")).count(), log.toString());
        assertTrue(server.protocols().webSocketWatches() >= watches + 2, log.toString());

        run.destroy(); // SIGTERM
        assertTrue(run.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends run");
        String out = Files.readString(log());
        assertEquals(0, run.exitValue(), out);
        assertTrue(out.lines().noneMatch(l -> l.contains(" ERROR ") || l.startsWith("\tat ") || l.contains("Exception")),
                out);
        System.out.println(out);
    }
}
