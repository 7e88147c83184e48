package io.nodelabeller.cli;

import io.nodelabeller.testing.ServerRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.nodelabeller.testing.Hosts;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code run} as a process against the fabric8 mock API server (CRUD mode, with expectations where a real API server
 * would answer 403 or 404) while NodeFeatureRule objects are created, changed and deleted: labels, annotations,
 * taints and extended resources on the node after each step, with nfd-master's semantics (objects in name order,
 * {@code rule.matched} across objects, {@code @} references, the default prefix), an invalid rule skipped, no request
 * at rest, and restarts that cannot read the objects (403: everything kept; CRD absent: what objects produced goes).
 */
class NodeFeatureRuleObjectsTest {

    private static final String NODE = "worker-1";
    private static final String LIST = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules?resourceVersion=0";
    /** As the CRD nodefeaturerules.nfd.k8s-sigs.io declares it (NFD deployment/base/nfd-crds/nfd-api-crds.yaml). */
    private static final CustomResourceDefinitionContext CRD = TestKubeconfig.NODE_FEATURE_RULE_CRD;
    private static final ResourceDefinitionContext NFR = new ResourceDefinitionContext.Builder()
            .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withPlural("nodefeaturerules")
            .withKind("NodeFeatureRule").withNamespaced(false).build();

    /** Sorted before b-policy: its var reaches b-policy's rules through rule.matched, as in nfd-master. */
    private static final String A_VARS = """
            apiVersion: nfd.k8s-sigs.io/v1alpha1
            kind: NodeFeatureRule
            metadata: {name: a-vars}
            spec:
              rules:
                - name: a var
                  vars: {a-var: hello}
            """;

    /** Every output kind, a reference across objects, and a rule whose regexp does not compile. */
    private static String policy(String version, String owner, String taintValue, String widgets) {
        return """
                apiVersion: nfd.k8s-sigs.io/v1alpha1
                kind: NodeFeatureRule
                metadata: {name: b-policy}
                spec:
                  rules:
                    - name: gpu node policy
                      labels: {vendor.io/policy: "%s", plain: "true"}
                      annotations: {vendor.io/owner: "%s"}
                      taints: [{key: vendor.io/dedicated, value: "%s", effect: NoSchedule}]
                      extendedResources: {vendor.io/widgets: "%s"}
                      matchFeatures:
                        - feature: system.osrelease
                          matchExpressions: {ID: {op: Exists}}
                    - name: broken
                      labels: {vendor.io/broken: "true"}
                      matchFeatures:
                        - feature: system.osrelease
                          matchExpressions: {ID: {op: InRegexp, value: ["("]}}
                    - name: uses a var of another object
                      labels: {vendor.io/from-a: "@rule.matched.a-var"}
                      matchFeatures:
                        - feature: rule.matched
                          matchExpressions: {a-var: {op: Exists}}
                """.formatted(version, owner, taintValue, widgets);
    }

    @TempDir
    Path tmp;

    private final Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    private KubernetesMockServer server;
    private KubernetesClient admin;
    private Process run;
    private Path log;
    private int port;

    @AfterEach
    void stop() throws Exception {
        stopRun();
        if (admin != null) {
            admin.close();
            server.destroy();
        }
    }

    private void startServer() throws IOException {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new io.nodelabeller.testing.NodeCrudDispatcher.Mixed(responses), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = server.createClient();
        // a node with another component's taint and capacity, which must stay as they are
        admin.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
                .withNewSpec().addNewTaint().withKey("example.com/maintenance").withEffect("NoSchedule").endTaint().endSpec()
                .withNewStatus().addToCapacity("cpu", new Quantity("8")).addToAllocatable("cpu", new Quantity("8"))
                .endStatus().build()).create();
    }

    private void startRun() throws IOException {
        port = freePort();
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, """
                core: {sleepInterval: 2s}
                daemon: {port: %d}
                publish: {taints: true, extendedResources: true, ruleChangeSpread: 0s}
                """.formatted(port));
        log = tmp.resolve("run-" + System.nanoTime() + ".log");
        run = Cli.start(log, "run", "--node-name", NODE,
                "--kubeconfig", TestKubeconfig.write(tmp, admin.getMasterUrl().toString()).toString(),
                "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString(), "--sources", "system");
    }

    private void stopRun() throws Exception {
        if (run != null) {
            run.destroy();
            assertTrue(run.waitFor(30, TimeUnit.SECONDS), "SIGTERM ends run");
            assertEquals(0, run.exitValue(), Files.readString(log));
            run = null;
        }
    }

    private void apply(String yaml) {
        admin.genericKubernetesResources(NFR).resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class))
                .createOr(r -> r.update());
    }

    @Test
    void objectsCreatedChangedAndDeletedWhileRunning() throws Exception {
        startServer();
        server.expectCustomResource(CRD);
        apply(A_VARS);
        apply(policy("v1", "team-a", "gpu", "4"));
        startRun();

        Node n = awaitNode(node -> "v1".equals(label(node, "vendor.io/policy")) && widgets(node) != null);
        assertEquals("true", label(n, "feature.node.kubernetes.io/plain"), "unprefixed keys get NFD's prefix");
        assertEquals("hello", label(n, "vendor.io/from-a"), "@rule.matched of an earlier object");
        assertNull(label(n, "vendor.io/broken"));
        assertEquals("team-a", n.getMetadata().getAnnotations().get("vendor.io/owner"));
        assertEquals(List.of("example.com/maintenance::NoSchedule", "vendor.io/dedicated:gpu:NoSchedule"), taints(n));
        assertEquals("4", widgets(n));
        assertEquals("8", n.getStatus().getCapacity().get("cpu").toString(), "other capacity untouched");
        Map<String, String> a = n.getMetadata().getAnnotations();
        assertEquals("vendor.io/owner", a.get("node-labeller.io/managed-annotations"));
        assertEquals("vendor.io/dedicated:NoSchedule", a.get("node-labeller.io/managed-taints"));
        assertEquals("vendor.io/widgets", a.get("node-labeller.io/managed-extended-resources"));
        String out = Files.readString(log);
        // found when evaluated, as nfd-master finds it, and said once, not every cycle
        assertEquals(1, count(out, "NodeFeatureRule objects: rule 'broken' skipped: invalid expression InRegexp [(]"), out);
        awaitMetric("node_labeller_nodefeaturerules_state{state=\"synced\"} 1.0");

        // at rest: the node watch and the objects' watch are open, nothing is sent in three cycles
        drainRequests();
        Thread.sleep(6_500);
        List<String> atRest = drainRequests();
        assertEquals(List.of(), atRest.stream().filter(r -> !r.contains("/metrics")).toList(), "requests at rest");

        // a changed object: every output follows within one burst, without waiting for the interval
        long start = System.nanoTime();
        apply(policy("v2", "team-b", "cpu", "8"));
        n = awaitNode(node -> "v2".equals(label(node, "vendor.io/policy")) && "8".equals(widgets(node))
                && taints(node).contains("vendor.io/dedicated:cpu:NoSchedule"));
        System.out.printf("changed NodeFeatureRule on the node after %d ms%n", (System.nanoTime() - start) / 1_000_000);
        assertEquals("team-b", n.getMetadata().getAnnotations().get("vendor.io/owner"));
        assertEquals(List.of("example.com/maintenance::NoSchedule", "vendor.io/dedicated:cpu:NoSchedule"), taints(n));

        // a deleted object: what only it produced goes (and what depended on it through rule.matched)
        admin.genericKubernetesResources(NFR).withName("a-vars").delete();
        n = awaitNode(node -> label(node, "vendor.io/from-a") == null);
        assertEquals("v2", label(n, "vendor.io/policy"));

        // restart while RBAC forbids reading the objects: nothing they produced is removed
        stopRun();
        server.expect().get().withPath(LIST).andReturn(403, status(403, "Forbidden",
                "nodefeaturerules.nfd.k8s-sigs.io is forbidden: User \\\"system:serviceaccount:node-labeller:node-labeller\\\""
                        + " cannot list resource \\\"nodefeaturerules\\\" in API group \\\"nfd.k8s-sigs.io\\\" at the cluster scope"))
                .always();
        startRun();
        awaitMetric("node_labeller_nodefeaturerules_state{state=\"forbidden\"} 1.0");
        // more cycles than publish.staleAfter (3): unknown objects are not gone objects
        awaitMetric("node_labeller_publishes_total{publisher=\"node\",result=\"unchanged\"} 5.0");
        assertEquals(0, count(Files.readString(log), "patched"), "no patch at all: " + Files.readString(log));
        n = node();
        assertEquals("v2", label(n, "vendor.io/policy"));
        assertEquals("team-b", n.getMetadata().getAnnotations().get("vendor.io/owner"));
        assertEquals(List.of("example.com/maintenance::NoSchedule", "vendor.io/dedicated:cpu:NoSchedule"), taints(n));
        assertEquals("8", widgets(n));
        assertEquals(1, count(Files.readString(log), "NodeFeatureRule objects: forbidden"), Files.readString(log));

        // restart where the CRD is gone (404): there are no objects, so what they produced is removed; other
        // components' taint and capacity stay
        stopRun();
        server.clearExpectations();
        server.expect().get().withPath(LIST).andReturn(404, status(404, "NotFound",
                "the server could not find the requested resource")).always();
        startRun();
        // the status patch removes the capacity, the metadata patch right after unlists it: read after both
        n = awaitNode(node -> label(node, "vendor.io/policy") == null && widgets(node) == null
                && !node.getMetadata().getAnnotations().containsKey("vendor.io/owner")
                && !node.getMetadata().getAnnotations().containsKey("node-labeller.io/managed-extended-resources"));
        assertEquals(List.of("example.com/maintenance::NoSchedule"), taints(n));
        assertEquals("8", n.getStatus().getCapacity().get("cpu").toString());
        assertFalse(n.getMetadata().getAnnotations().containsKey("node-labeller.io/managed-taints"));
        assertFalse(n.getMetadata().getAnnotations().containsKey("node-labeller.io/managed-extended-resources"));
        awaitMetric("node_labeller_nodefeaturerules_state{state=\"absent\"} 1.0");
    }

    /**
     * The default install without NFD: no NodeFeatureRule CRD, so the LIST answers 404 (as kube-apiserver answers
     * for a resource no CRD serves). That is a healthy node: its log has no ERROR, no WARN and no stack trace,
     * fabric8's informer and client included, only our one INFO line saying the CRD is not installed.
     */
    @Test
    void aHealthyNodeWithoutTheCrdLogsNoWarningErrorOrStackTrace() throws Exception {
        startServer();
        server.expect().get().withPath(LIST).andReturn(404, status(404, "NotFound",
                "the server could not find the requested resource")).always();
        startRun();
        awaitMetric("node_labeller_nodefeaturerules_state{state=\"absent\"} 1.0");
        awaitMetric("node_labeller_publishes_total{publisher=\"node\",result=\"unchanged\"} 2.0");
        stopRun();
        String text = Files.readString(log);
        List<String> loud = text.lines().filter(l -> l.matches("\\S+ (WARN|ERROR) .*") || l.startsWith("\tat ")
                || l.matches(".*(Exception|Error)(: .*)?$")).toList();
        assertEquals(List.of(), loud, text);
        assertEquals(1, count(text, "the CRD nodefeaturerules.nfd.k8s-sigs.io is not installed"), text);
    }

    /** {@code once} reads the objects with one LIST (no watch) and applies them in its one cycle. */
    @Test
    void onceAppliesTheObjectsOfOneList() throws Exception {
        onceAppliesTheObjects(false);
    }

    /**
     * The LIST runs beside the read of the node, and {@code once} waits for it to its end, however slow (within the
     * request's timeout): not the two seconds {@code run}'s first cycle gives its watch.
     */
    @Test
    void onceWaitsForASlowList() throws Exception {
        onceAppliesTheObjects(true);
    }

    private void onceAppliesTheObjects(boolean slowList) throws Exception {
        startServer();
        server.expectCustomResource(CRD);
        apply(A_VARS);
        apply(policy("v1", "team-a", "gpu", "4"));
        if (slowList) {
            // the list the CRUD server would give, answered 4 s late (fabric8's mock server: expectations come first)
            String list = Serialization.asJson(admin.genericKubernetesResources(NFR).list());
            server.expect().get().delay(4, TimeUnit.SECONDS).withPath("/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules")
                    .andReturn(200, list).once();
        }
        drainRequests();
        Path cfg = tmp.resolve("once.yaml");
        Files.writeString(cfg, "publish: {taints: true, extendedResources: true}\n");
        log = tmp.resolve("once.log");
        Process once = Cli.start(log, "once", "--node-name", NODE,
                "--kubeconfig", TestKubeconfig.write(tmp, admin.getMasterUrl().toString()).toString(),
                "--config", cfg.toString(), "--host-root", Hosts.root("gpu-server").toString(), "--sources", "system");
        assertTrue(once.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, once.exitValue(), Files.readString(log));
        Node n = node();
        assertEquals("v1", label(n, "vendor.io/policy"));
        assertEquals("hello", label(n, "vendor.io/from-a"));
        assertEquals(List.of("example.com/maintenance::NoSchedule", "vendor.io/dedicated:gpu:NoSchedule"), taints(n));
        assertEquals("4", widgets(n));
        List<String> rules = drainRequests().stream().filter(r -> r.contains("nodefeaturerules")).toList();
        assertEquals(1, rules.size(), "one LIST, no watch: " + rules);
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"" + message
                + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
    }

    private Node node() {
        return admin.nodes().withName(NODE).get();
    }

    private static String label(Node n, String key) {
        return n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(key);
    }

    private static String widgets(Node n) {
        Quantity q = n.getStatus() == null || n.getStatus().getCapacity() == null ? null
                : n.getStatus().getCapacity().get("vendor.io/widgets");
        return q == null ? null : q.toString();
    }

    /** The node's taints as key:value:effect, in order. */
    private static List<String> taints(Node n) {
        List<String> out = new ArrayList<>();
        if (n.getSpec().getTaints() != null) {
            for (Taint t : n.getSpec().getTaints()) {
                out.add(t.getKey() + ":" + (t.getValue() == null ? "" : t.getValue()) + ":" + t.getEffect());
            }
        }
        return out;
    }

    private Node awaitNode(Predicate<Node> p) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            Node n = node();
            if (p.test(n)) {
                return n;
            }
            Thread.sleep(50);
        }
        return fail("node now " + node() + "\n" + Files.readString(log));
    }

    /** The server's requests since the last call, less the test's own reads of the node. */
    private List<String> drainRequests() {
        return ServerRequests.drain(server, 100).stream().filter(r -> !r.equals("GET /api/v1/nodes/" + NODE)).toList();
    }

    private void awaitMetric(String line) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String last = "";
        while (System.nanoTime() < end) {
            last = metrics();
            if (last.contains("\n" + line + "\n")) {
                return;
            }
            Thread.sleep(50);
        }
        fail("no '" + line + "' in\n" + last + "\n" + Files.readString(log));
    }

    private String metrics() throws InterruptedException {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static int count(String s, String part) {
        return s.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }
}
