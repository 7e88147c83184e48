package io.nodelabeller.publish;

import io.nodelabeller.testing.TestKubeconfig;
import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.patch;
import static com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of API failure, served by WireMock: the publisher never crashes, never touches a foreign label,
 * retries as the error calls for (re-read, backoff honouring Retry-After, or give up this cycle), stays within
 * its bounds, and converges once the fault clears. Waits are checked on a fake clock: no real backoff sleeps.
 */
class NodePublisherFaultTest {

    static final String NODE = "worker-1";
    static final String PATH = "/api/v1/nodes/" + NODE;
    static final ObjectMapper JSON = new ObjectMapper();
    static final Set<String> OURS = Set.of("nvidia.com/gpu.present", "feature.node.kubernetes.io/cpu-model.vendor_id");
    static final Duration REQUEST_TIMEOUT = Duration.ofMillis(1000);

    /** Foreign labels, a label we used to own and no longer want, and a non-ASCII annotation. */
    static final String NODE_BEFORE = """
            {"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-1","resourceVersion":"100",
             "labels":{"kubernetes.io/hostname":"worker-1","team.example.com/owner":"ops","nvidia.com/gpu.count":"8"},
             "annotations":{"note.example.com/comment":"café é","node-labeller.io/managed-labels":"nvidia.com/gpu.count"}}}
            """;
    static final String NODE_AFTER = """
            {"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-1","resourceVersion":"101",
             "labels":{"kubernetes.io/hostname":"worker-1","team.example.com/owner":"ops",
                       "nvidia.com/gpu.present":"true","feature.node.kubernetes.io/cpu-model.vendor_id":"Intel"},
             "annotations":{"note.example.com/comment":"café é",
                            "node-labeller.io/managed-labels":"feature.node.kubernetes.io/cpu-model.vendor_id,nvidia.com/gpu.present"}}}
            """;

    WireMockServer wm;
    KubernetesClient client;
    FakeTiming timing;
    List<Integer> apiErrors;
    int patches;
    NodePublisher publisher;

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        wm = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wm.start();
        Path kubeconfig = TestKubeconfig.write(dir, "http://127.0.0.1:" + wm.port());
        client = KubernetesClients.create(kubeconfig, REQUEST_TIMEOUT);
        timing = new FakeTiming();
        apiErrors = new ArrayList<>();
        PublishEvents events = new PublishEvents() {
            @Override
            public void patchSent() {
                patches++;
            }

            @Override
            public void apiError(int status) {
                apiErrors.add(status);
            }
        };
        NodePublisher.Settings settings = NodePublisher.Settings.defaults()
                .withRequestTimeout(REQUEST_TIMEOUT)
                .withWatchTimeout(null) // WireMock serves no WebSocket watch: read the node every cycle
                .withTiming(timing, new Random(7));
        publisher = new NodePublisher(client, NODE, settings, events);
        // one request through the same client first, so that a cold JVM does not time out the test's first request
        wm.stubFor(get(urlEqualTo("/warm-up")).willReturn(okJson("{}")));
        var http = client.getHttpClient();
        http.sendAsync(http.newHttpRequestBuilder().uri("http://127.0.0.1:" + wm.port() + "/warm-up").build(), String.class)
                .get(30, TimeUnit.SECONDS);
        wm.resetRequests();
        wm.stubFor(get(urlEqualTo(PATH)).willReturn(okJson(NODE_BEFORE)));
        wm.stubFor(patch(urlEqualTo(PATH)).willReturn(okJson(NODE_AFTER)));
    }

    @AfterEach
    void stop() {
        publisher.close();
        client.close();
        wm.stop();
    }

    static LabelSet desired() {
        TreeMap<String, Label> m = new TreeMap<>();
        m.put("nvidia.com/gpu.present", Label.of("nvidia.com/gpu.present", "true", "t", "t"));
        m.put("feature.node.kubernetes.io/cpu-model.vendor_id",
                Label.of("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel", "t", "t"));
        return new LabelSet(m, List.of());
    }

    /** The first {@code times} requests of {@code method} get {@code fault}; later ones the normal answer. */
    void failFirst(String method, int times, ResponseDefinitionBuilder fault) {
        String state = Scenario.STARTED;
        for (int i = 1; i <= times; i++) {
            String next = "after-" + i;
            var mapping = method.equals("GET") ? get(urlEqualTo(PATH)) : patch(urlEqualTo(PATH));
            wm.stubFor(mapping.inScenario("fault").whenScenarioStateIs(state).willReturn(fault).willSetStateTo(next));
            state = next;
        }
    }

    /** Each PATCH sent touches only our labels (and the annotation): never a foreign one. */
    void assertOnlyOwnedKeysPatched() throws Exception {
        var sent = wm.findAll(patchRequestedFor(urlEqualTo(PATH)));
        for (var request : sent) {
            assertEquals("application/json-patch+json", request.getHeader("Content-Type").split(";")[0]);
            for (JsonNode op : JSON.readTree(request.getBodyAsString())) {
                String path = op.get("path").asText();
                if (path.startsWith("/metadata/labels/")) {
                    String key = path.substring("/metadata/labels/".length()).replace("~1", "/").replace("~0", "~");
                    assertTrue(OURS.contains(key) || key.equals("nvidia.com/gpu.count"), "touched foreign label " + key);
                } else {
                    assertEquals("/metadata/annotations/node-labeller.io~1managed-labels", path);
                }
            }
        }
    }

    /** Backoff retry n waits within [d/2, d], d = min(500 ms · 2ⁿ, 10 s), or exactly Retry-After when longer. */
    void assertBackoffWithinBounds(Duration retryAfter) {
        for (int n = 0; n < timing.sleeps.size(); n++) {
            long d = Math.min(500L << n, 10_000L);
            long slept = timing.sleeps.get(n).toMillis();
            if (retryAfter != null && retryAfter.toMillis() > d) {
                assertEquals(retryAfter.toMillis(), slept, "retry " + n + " honours Retry-After");
            } else {
                assertTrue(slept >= d / 2 && slept <= d, "retry " + n + " waited " + slept + " ms, bounds [" + d / 2 + ", " + d + "]");
            }
        }
    }

    static Stream<Arguments> transientFaults() {
        return Stream.of(
                Arguments.of("500 on PATCH", "PATCH", aResponse().withStatus(500).withBody("{\"kind\":\"Status\",\"message\":\"etcdserver: leader changed\"}"), 500, null),
                Arguments.of("503 on GET", "GET", aResponse().withStatus(503).withBody("unavailable"), 503, null),
                Arguments.of("429 with Retry-After", "PATCH", aResponse().withStatus(429).withHeader("Retry-After", "3")
                        .withHeader("Content-Type", "text/plain").withBody("Too many requests, please try again later.\n"), 429, Duration.ofSeconds(3)),
                Arguments.of("slow answer", "PATCH", okJson(NODE_AFTER).withFixedDelay(1_500), 0, null),
                Arguments.of("connection reset", "PATCH", aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER), 0, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transientFaults")
    void transientFaultsAreRetriedWithBackoffInTheSamePublish(String name, String method, ResponseDefinitionBuilder fault,
                                                             int status, Duration retryAfter) throws Exception {
        failFirst(method, 2, fault);
        assertTrue(publisher.publish(desired()));
        assertEquals(List.of(status, status), apiErrors);
        assertEquals(1, patches);
        assertEquals(2, timing.sleeps.size(), "one wait per failure: " + timing.sleeps);
        assertBackoffWithinBounds(retryAfter);
        assertOnlyOwnedKeysPatched();
        // no hidden retry by the client underneath: a failed GET is sent again; a failed PATCH may or may not
        // have been applied, so the node is read again before the next PATCH
        int expected = method.equals("GET") ? 3 + 1 : 3 * 2;
        assertEquals(expected, wm.findAll(anyRequestedFor(anyUrl())).size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("conflicts")
    void conflictsReReadTheNodeAndRetryAtOnce(int status) throws Exception {
        failFirst("PATCH", 1, aResponse().withStatus(status)
                .withBody("{\"kind\":\"Status\",\"code\":" + status + ",\"message\":\"the object has been modified\"}"));
        assertTrue(publisher.publish(desired()));
        assertEquals(List.of(status), apiErrors);
        assertEquals(List.of(), timing.sleeps, "a stale view is re-read, not waited for");
        assertEquals(2, wm.findAll(getRequestedFor(urlEqualTo(PATH))).size(), "re-read after " + status);
        assertEquals(2, wm.findAll(patchRequestedFor(urlEqualTo(PATH))).size());
        assertOnlyOwnedKeysPatched();
    }

    static Stream<Integer> conflicts() {
        return Stream.of(409, 422);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permanent")
    void forbiddenAndNotFoundGiveUpThisCycleAndRecoverLater(int status) throws Exception {
        String message = status == 403 ? "nodes \\\"worker-1\\\" is forbidden" : "nodes \\\"worker-1\\\" not found";
        failFirst("GET", 1, aResponse().withStatus(status)
                .withBody("{\"kind\":\"Status\",\"code\":" + status + ",\"message\":\"" + message + "\"}"));
        PublishException e = assertThrows(PublishException.class, () -> publisher.publish(desired()));
        assertEquals(status, e.status());
        assertEquals(List.of(), timing.sleeps);
        assertEquals(1, wm.findAll(anyRequestedFor(anyUrl())).size(), "no retry within the cycle");
        // next cycle, the fault has cleared
        assertTrue(publisher.publish(desired()));
        assertEquals(1, patches);
        assertOnlyOwnedKeysPatched();
    }

    static Stream<Integer> permanent() {
        return Stream.of(403, 404);
    }

    @Test
    void aLastingForbiddenIsLoggedOnceAndItsEndOnce() throws Exception {
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(NodePublisher.class)) {
            wm.stubFor(get(urlEqualTo(PATH)).willReturn(aResponse().withStatus(403)
                    .withBody("{\"kind\":\"Status\",\"code\":403,\"message\":\"nodes is forbidden\"}")));
            for (int i = 0; i < 3; i++) {
                assertThrows(PublishException.class, () -> publisher.publish(desired()));
            }
            wm.stubFor(get(urlEqualTo(PATH)).willReturn(okJson(NODE_AFTER)));
            assertFalse(publisher.publish(desired()));
            assertFalse(publisher.publish(desired()));
            List<String> lines = log.messages(Level.INFO);
            assertEquals(2, lines.size(), lines.toString());
            assertTrue(lines.get(0).contains("HTTP 403") && lines.get(0).contains("RBAC"), lines.get(0));
            assertTrue(lines.get(1).endsWith("working again"), lines.get(1));
            assertEquals(List.of(403, 403, 403), apiErrors);
        }
    }

    @Test
    void aPersistentOutageGivesUpWithinBoundsAndTheNextCycleConverges() throws Exception {
        wm.stubFor(patch(urlEqualTo(PATH)).willReturn(aResponse().withStatus(503)));
        PublishException e = assertThrows(PublishException.class, () -> publisher.publish(desired()));
        assertEquals(503, e.status());
        NodePublisher.Settings s = NodePublisher.Settings.defaults();
        int patchesSent = wm.findAll(patchRequestedFor(urlEqualTo(PATH))).size();
        assertTrue(patchesSent <= s.maxAttempts(), patchesSent + " attempts");
        assertTrue(timing.slept().compareTo(s.giveUpAfter()) <= 0, "waited " + timing.slept());
        assertBackoffWithinBounds(null);
        assertEquals(0, patches);

        wm.stubFor(patch(urlEqualTo(PATH)).willReturn(okJson(NODE_AFTER))); // the outage is over
        assertTrue(publisher.publish(desired()));
        assertEquals(1, patches);
        assertOnlyOwnedKeysPatched();
    }

    @Test
    void aRetryAfterLongerThanTheBudgetEndsTheCycleInsteadOfHammering() {
        wm.stubFor(patch(urlEqualTo(PATH)).willReturn(aResponse().withStatus(429).withHeader("Retry-After", "120")
                .withBody("Too many requests, please try again later.\n")));
        PublishException e = assertThrows(PublishException.class, () -> publisher.publish(desired()));
        assertEquals(429, e.status());
        assertEquals(List.of(), timing.sleeps);
        assertEquals(1, wm.findAll(patchRequestedFor(urlEqualTo(PATH))).size());
    }

    @Test
    void nothingToChangeSendsOnlyTheReadWithoutAWatch() throws Exception {
        wm.stubFor(get(urlEqualTo(PATH)).willReturn(okJson(NODE_AFTER)));
        assertFalse(publisher.publish(desired()));
        assertEquals(0, wm.findAll(patchRequestedFor(urlEqualTo(PATH))).size());
        assertEquals(1, wm.findAll(anyRequestedFor(anyUrl())).size());
    }

    /**
     * The NodeFeature output goes through the same request layer and failure policy as the node patch: a 503 on the
     * read and a 409 on the write (another writer) are retried within the publish, with the same backoff, and counted
     * as API errors; a 403 is not retried. Request shapes as kube-apiserver serves a namespaced custom resource
     * (GET/PUT on .../namespaces/NS/nodefeatures/NAME, 409 Status on a stale resourceVersion).
     */
    @Test
    void nodeFeatureWritesFollowTheSamePolicy() throws Exception {
        String item = "/apis/nfd.k8s-sigs.io/v1alpha1/namespaces/nfd/nodefeatures/" + NODE;
        String existing = """
                {"apiVersion":"nfd.k8s-sigs.io/v1alpha1","kind":"NodeFeature","metadata":{"name":"worker-1",
                 "namespace":"nfd","resourceVersion":"7","labels":{"nfd.node.kubernetes.io/node-name":"worker-1"}},
                 "spec":{"features":{},"labels":{}}}
                """;
        String conflict = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Conflict\","
                + "\"code\":409,\"message\":\"Operation cannot be fulfilled on nodefeatures.nfd.k8s-sigs.io "
                + "\\\"worker-1\\\": the object has been modified; please apply your changes to the latest version\"}";
        wm.stubFor(get(urlEqualTo(item)).inScenario("nf").whenScenarioStateIs(com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED)
                .willReturn(aResponse().withStatus(503).withBody("unavailable")).willSetStateTo("read"));
        wm.stubFor(get(urlEqualTo(item)).inScenario("nf").whenScenarioStateIs("read").willReturn(okJson(existing)));
        wm.stubFor(com.github.tomakehurst.wiremock.client.WireMock.put(urlEqualTo(item)).inScenario("nf")
                .whenScenarioStateIs("read").willReturn(aResponse().withStatus(409).withBody(conflict)).willSetStateTo("written"));
        wm.stubFor(get(urlEqualTo(item)).inScenario("nf").whenScenarioStateIs("written").willReturn(okJson(existing)));
        wm.stubFor(com.github.tomakehurst.wiremock.client.WireMock.put(urlEqualTo(item)).inScenario("nf")
                .whenScenarioStateIs("written").willReturn(okJson(existing)));
        List<Integer> errors = new ArrayList<>();
        PublishEvents events = new PublishEvents() {
            @Override
            public void apiError(int status) {
                errors.add(status);
            }
        };
        NodePublisher.Settings settings = NodePublisher.Settings.defaults().withRequestTimeout(REQUEST_TIMEOUT)
                .withTiming(timing, new Random(7));
        NodeFeaturePublisher nf = new NodeFeaturePublisher(client, "nfd", "", NODE, List.of(), List.of(),
                OwnerRefs.Pod.NONE, settings, events, Install.unchecked(Bookkeeping.DEFAULT));
        io.nodelabeller.label.LabelSet labels = new io.nodelabeller.label.LabelSet(new java.util.TreeMap<>(java.util.Map.of(
                "nvidia.com/gpu.present", io.nodelabeller.label.Label.of("nvidia.com/gpu.present", "true", "nvidia", "t"))),
                List.of());
        assertTrue(nf.publish(labels));
        assertEquals(List.of(503, 409), errors);
        assertEquals(3, wm.findAll(getRequestedFor(urlEqualTo(item))).size(), "read, re-read after 503, re-read after 409");
        assertEquals(2, wm.findAll(com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor(urlEqualTo(item))).size());
        assertEquals(1, timing.sleeps.size(), "one backoff (after the 503); a conflict reads again at once");

        wm.stubFor(get(urlEqualTo(item)).willReturn(aResponse().withStatus(403).withBody(
                "{\"kind\":\"Status\",\"code\":403,\"message\":\"nodefeatures is forbidden\"}")));
        wm.resetRequests();
        PublishException e = org.junit.jupiter.api.Assertions.assertThrows(PublishException.class, () -> nf.publish(labels));
        assertEquals(403, e.status());
        assertEquals(1, wm.findAll(getRequestedFor(urlEqualTo(item))).size(), "a 403 is not retried");
    }
}
