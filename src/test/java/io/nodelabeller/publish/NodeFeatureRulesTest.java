package io.nodelabeller.publish;

import io.nodelabeller.testing.ServerRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodelabeller.label.rules.RuleObjects;
import io.nodelabeller.testing.TestKubeconfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The NodeFeatureRule feed against fabric8's mock API server in CRUD mode: one LIST and one WATCH, changes seen
 * without further requests, the CRD absent (404) and RBAC missing (403) as a real API server answers them.
 */
class NodeFeatureRulesTest {

    /** As the CRD nodefeaturerules.nfd.k8s-sigs.io declares it (NFD deployment/base/nfd-crds/nfd-api-crds.yaml). */
    static final CustomResourceDefinitionContext CRD = TestKubeconfig.NODE_FEATURE_RULE_CRD;

    /** The informer's first LIST: from the API server's watch cache (resourceVersion=0), as client-go's reflector. */
    static final String LIST = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules?resourceVersion=0";

    static final String RELIST = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules";

    KubernetesMockServer server;
    KubernetesClient admin;
    KubernetesClient client;
    NodeFeatureRules rules;
    final List<NodeFeatureRules.State> states = new CopyOnWriteArrayList<>();
    final AtomicInteger changes = new AtomicInteger();

    @TempDir
    Path dir;

    /** A server in CRUD mode; with {@code crud} false, one that answers only what a test expects. */
    void start(boolean crud) throws Exception {
        server = crud
                ? new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new io.nodelabeller.testing.NodeCrudDispatcher(), false)
                : new KubernetesMockServer(false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = server.createClient();
        client = KubernetesClients.create(TestKubeconfig.write(dir, server.url("/")), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        if (rules != null) {
            rules.close();
        }
        if (server != null) {
            client.close();
            admin.close();
            server.destroy();
        }
    }

    /** A NodeFeatureRule object as kubectl would create it from YAML. */
    static GenericKubernetesResource object(String yaml) {
        return Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    }

    static final String SAMPLE = """
            apiVersion: nfd.k8s-sigs.io/v1alpha1
            kind: NodeFeatureRule
            metadata:
              name: my-sample-rule-object
            spec:
              rules:
                - name: "my sample rule"
                  labels:
                    "vendor.io/my-sample-feature": "true"
                  matchFeatures:
                    - feature: kernel.loadedmodule
                      matchExpressions:
                        dummy: {op: Exists}
            """;

    NodeFeatureRules feed(Duration recheck) {
        rules = new NodeFeatureRules(client, states::add, recheck);
        return rules;
    }

    List<String> drainRequests() {
        return ServerRequests.drain(server, 100);
    }

    static void await(Supplier<Boolean> condition, String what) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            if (condition.get()) {
                return;
            }
            Thread.sleep(10);
        }
        fail("timed out waiting: " + what);
    }

    @Test
    void watchesObjectsWithOneListAndOneWatch() throws Exception {
        start(true);
        server.expectCustomResource(CRD);
        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).resource(object(SAMPLE)).create();
        drainRequests();

        NodeFeatureRules feed = feed(Duration.ofMinutes(10));
        feed.watch(changes::incrementAndGet);
        assertTrue(feed.awaitKnown(Duration.ofSeconds(5)));
        RuleObjects.View view = feed.current();
        assertTrue(view.known());
        assertEquals(List.of("my-sample-rule-object"), view.objects().stream().map(RuleObjects.RuleObject::name).toList());
        assertEquals("my sample rule", view.objects().get(0).rules().get(0).name());
        await(() -> changes.get() == 1, "the first read reported as a change");

        List<String> requests = drainRequests();
        assertEquals(2, requests.size(), requests.toString());
        assertTrue(requests.get(0).startsWith("GET /apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules"), requests.toString());
        assertFalse(requests.get(0).contains("watch=true"), requests.toString());
        assertTrue(requests.get(1).contains("watch=true") && requests.get(1).contains("allowWatchBookmarks=true"),
                requests.toString());

        // a second object, a change of the first, a deletion: seen through the watch, one change call per burst
        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).resource(object(SAMPLE.replace("my-sample-rule-object", "a-first")
                .replace("vendor.io/my-sample-feature", "vendor.io/other"))).create();
        await(() -> feed.current().objects().size() == 2, "the created object");
        assertEquals("a-first", feed.current().objects().get(0).name(), "objects in name order (nfd-master's)");
        await(() -> changes.get() == 2, "a change call");

        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).withName("a-first").delete();
        await(() -> feed.current().objects().size() == 1, "the deleted object");
        await(() -> changes.get() == 3, "a change call");
        List<String> during = drainRequests().stream().filter(r -> r.contains("/nfd.k8s-sigs.io/")).toList();
        assertEquals(List.of(), during.stream().filter(r -> !r.startsWith("POST") && !r.startsWith("DELETE")).toList(),
                "no request of the feed after the watch opened: " + during);
        assertEquals(List.of(NodeFeatureRules.State.SYNCED), states);
    }

    /**
     * A change every agent sees at the same moment waits 500 ms plus its random share of publish.ruleChangeSpread
     * before the cycle; events during that wait join it; the first read at start-up does not wait for the spread.
     */
    @Test
    void aChangeWaitsForItsShareOfTheSpreadAndTheFirstReadDoesNot() throws Exception {
        start(true);
        server.expectCustomResource(CRD);
        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).resource(object(SAMPLE)).create();
        java.util.concurrent.atomic.AtomicLong bound = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.random.RandomGenerator drawn = new java.util.random.RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public long nextLong(long b) {
                bound.set(b);
                return 1_500; // this agent's share of [0, 2000] ms
            }
        };
        List<Long> calls = new CopyOnWriteArrayList<>();
        rules = new NodeFeatureRules(client, states::add, Duration.ofMinutes(10), Duration.ofSeconds(2), drawn);
        long start = System.nanoTime();
        rules.watch(() -> calls.add(System.nanoTime()));
        await(() -> calls.size() == 1, "the first read reported");
        long first = (calls.get(0) - start) / 1_000_000;
        assertTrue(first < 1_500, "the first read is not spread: " + first + " ms");
        assertEquals(-1, bound.get(), "nothing drawn for the first read");

        long event = System.nanoTime();
        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).resource(object(SAMPLE.replace("my-sample-rule-object", "b")))
                .create();
        await(() -> rules.current().objects().size() == 2, "the created object");
        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).resource(object(SAMPLE.replace("my-sample-rule-object", "c")))
                .create();
        await(() -> rules.current().objects().size() == 3, "the second created object");
        for (int i = 0; i < 400 && calls.size() < 2; i++) {
            Thread.sleep(10);
        }
        assertEquals(2, calls.size(), "both events in one call");
        long waited = (calls.get(1) - event) / 1_000_000;
        assertEquals(2_001, bound.get(), "drawn from [0, 2000] ms");
        assertTrue(waited >= 2_000, "500 ms + the drawn 1500 ms: " + waited + " ms");
        Thread.sleep(700);
        assertEquals(2, calls.size(), "no further call: " + calls.size());
    }

    @Test
    void anInvalidRuleIsLeftOutAndTheOthersApply() {
        RuleObjects.RuleObject o = NodeFeatureRules.parse("bad", object("""
                apiVersion: nfd.k8s-sigs.io/v1alpha1
                kind: NodeFeatureRule
                metadata: {name: bad}
                spec:
                  rules:
                    - name: unknown operator
                      labels: {vendor.io/x: "true"}
                      matchFeatures:
                        - feature: kernel.loadedmodule
                          matchExpressions:
                            dummy: {op: Equals, value: ["x"]}
                    - name: broken regexp
                      labels: {vendor.io/z: "true"}
                      matchFeatures:
                        - feature: kernel.loadedmodule
                          matchExpressions:
                            dummy: {op: InRegexp, value: ["(unclosed"]}
                    - name: good
                      labels: {vendor.io/y: "true"}
                """).getAdditionalProperties().get("spec"));
        // the broken regexp is nfd-master's to find when it evaluates it (Expressions); an operator it does not know,
        // which its CRD refuses, cannot be read
        assertEquals(List.of("broken regexp", "good"), o.rules().stream().map(r -> r.name()).toList());
    }

    @Test
    void withoutTheCrdTheViewIsKnownAndEmptyAndCheckedAgainRarely() throws Exception {
        start(false);
        // a real API server answers 404 for a resource it does not serve
        server.expect().get().withPath(LIST).andReturn(404,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"the server could not find the requested resource\",\"reason\":\"NotFound\",\"code\":404}").always();
        NodeFeatureRules feed = feed(Duration.ofMillis(700));
        feed.watch(changes::incrementAndGet);
        assertTrue(feed.awaitKnown(Duration.ofSeconds(5)));
        assertEquals(NodeFeatureRules.State.ABSENT, feed.state());
        assertTrue(feed.current().known());
        assertEquals(List.of(), feed.current().objects());
        Thread.sleep(1_000);
        long lists = drainRequests().stream().filter(r -> r.contains("nodefeaturerules")).count();
        assertEquals(2, lists, "one LIST at start, one after the recheck interval, none in between");
    }

    @Test
    @Timeout(30)
    void aListOnAnotherThreadWakesWhoWaitsForIt() throws Exception {
        // once lists the objects on a thread of their own while it reads the node, then waits for the list
        start(true);
        server.expectCustomResource(CRD);
        admin.genericKubernetesResources(NodeFeatureRules.CONTEXT).resource(object(SAMPLE)).create();
        NodeFeatureRules feed = feed(Duration.ofMinutes(10));
        Thread read = new Thread(feed::listOnce, "rule-objects-read");
        read.start();
        // a wake-up lost would wait the whole ten minutes (and fail the test's own limit): the wait ends on the list
        assertTrue(feed.awaitKnown(Duration.ofMinutes(10)));
        assertEquals(List.of("my-sample-rule-object"),
                feed.current().objects().stream().map(RuleObjects.RuleObject::name).toList());
        assertEquals(List.of(NodeFeatureRules.State.SYNCED), states, "told before the waiter woke");
        read.join(5_000);
    }

    @Test
    void forbiddenBeforeTheFirstReadLeavesTheViewUnknown() throws Exception {
        start(false);
        server.expect().get().withPath(LIST).andReturn(403,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"nodefeaturerules.nfd.k8s-sigs.io is forbidden: User \\\"system:serviceaccount:node-labeller:node-labeller\\\" cannot list resource \\\"nodefeaturerules\\\" in API group \\\"nfd.k8s-sigs.io\\\" at the cluster scope\",\"reason\":\"Forbidden\",\"code\":403}").always();
        NodeFeatureRules feed = feed(Duration.ofMinutes(10));
        feed.watch(changes::incrementAndGet);
        assertFalse(feed.awaitKnown(Duration.ofSeconds(5)));
        assertEquals(NodeFeatureRules.State.FORBIDDEN, feed.state());
        assertFalse(feed.current().known());
        assertEquals(List.of(NodeFeatureRules.State.FORBIDDEN), states);
    }

    /** A NodeFeatureRuleList as the API server answers a LIST: the objects and the list's resourceVersion. */
    static String list(String resourceVersion, String... objectsJson) {
        return "{\"kind\":\"NodeFeatureRuleList\",\"apiVersion\":\"nfd.k8s-sigs.io/v1alpha1\",\"metadata\":{\"resourceVersion\":\""
                + resourceVersion + "\"},\"items\":[" + String.join(",", objectsJson) + "]}";
    }

    static String json(String yaml) {
        return Serialization.asJson(object(yaml));
    }

    /**
     * 410 Gone on the watch (the resourceVersion left the API server's window, as after a long disconnection): the
     * objects are read again with a fresh LIST, which shows a change the watch missed.
     */
    @Test
    void aWatchEndedBy410IsFollowedByAFreshList() throws Exception {
        start(false);
        String watch = "/apis/nfd.k8s-sigs.io/v1alpha1/nodefeaturerules?allowWatchBookmarks=true&resourceVersion=%s"
                + "&timeoutSeconds=600&watch=true";
        // objects as the API server returns them, each with its resourceVersion (an informer compares them)
        server.expect().get().withPath(LIST).andReturn(200, list("5", json(SAMPLE.replace("name: my-sample-rule-object",
                "name: my-sample-rule-object\n  resourceVersion: \"4\"")))).once();
        // after 410 the informer lists without resourceVersion=0: a consistent read, not the watch cache (as client-go)
        server.expect().get().withPath(RELIST).andReturn(200, list("9", json(SAMPLE.replace("vendor.io/my-sample-feature",
                "vendor.io/changed-while-away").replace("name: my-sample-rule-object",
                "name: my-sample-rule-object\n  resourceVersion: \"8\"")))).always();
        server.expect().get().withPath(watch.formatted("5")).andUpgradeToWebSocket().open().waitFor(300)
                .andEmit(new io.fabric8.kubernetes.api.model.WatchEvent(new io.fabric8.kubernetes.api.model.StatusBuilder()
                        .withCode(410).withReason("Expired").withMessage("too old resource version: 5 (8)").build(), "ERROR"))
                .done().once();
        // the new watch stays open while the test reads (a bookmark after 2 s)
        server.expect().get().withPath(watch.formatted("9")).andUpgradeToWebSocket().open().waitFor(2_000)
                .andEmit(new io.fabric8.kubernetes.api.model.WatchEvent(object(SAMPLE), "BOOKMARK")).done().always();
        NodeFeatureRules feed = feed(Duration.ofMinutes(10));
        feed.watch(changes::incrementAndGet);
        assertTrue(feed.awaitKnown(Duration.ofSeconds(5)));
        await(() -> feed.current().objects().size() == 1 && feed.current().objects().get(0).rules().get(0).labels()
                .containsKey("vendor.io/changed-while-away"), "the fresh LIST after 410");
        List<String> lists = drainRequests().stream().filter(r -> !r.contains("watch=true")).toList();
        assertEquals(List.of("GET " + LIST, "GET " + RELIST), lists, "one LIST at start, one after 410");
        await(() -> changes.get() >= 2, "the change seen through the fresh LIST runs a cycle");
    }
}
