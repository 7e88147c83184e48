package io.nodelabeller.daemon;

import io.nodelabeller.daemon.Fakes.FakeSource;
import io.nodelabeller.daemon.Fakes.ManualClock;
import io.nodelabeller.daemon.Fakes.RecordingPublisher;
import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.publish.PublishException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EndpointsTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static InetSocketAddress loopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Test
    void healthReadinessAndMetrics() throws Exception {
        FakeSource kernel = new FakeSource("kernel");
        FakeSource nvidia = new FakeSource("nvidia");
        nvidia.fail = true;
        RecordingPublisher p = new RecordingPublisher("node");
        Metrics metrics = new Metrics();
        ManualClock clock = new ManualClock();
        Cycle cycle = new Cycle(Fakes.discovery(kernel, nvidia), Fakes.labelling("kernel", "nvidia"),
                Retention.initial(3), List.of(p), metrics, clock);
        Duration window = Duration.ofMinutes(2);
        try (Endpoints e = Endpoints.start(loopback(), metrics.registry(), () -> cycle.succeededWithin(window))) {
            assertTrue(e.port() > 0);
            assertEquals(200, get(e.port(), "/healthz").statusCode());
            assertEquals(503, get(e.port(), "/readyz").statusCode(), "no publish yet");

            p.failWith = new PublishException("forbidden", 403, null);
            cycle.run();
            assertEquals(503, get(e.port(), "/readyz").statusCode(), "only a failed publish so far");
            p.failWith = null;
            cycle.run();
            assertEquals(200, get(e.port(), "/readyz").statusCode());
            clock.advance(window.plusSeconds(1));
            assertEquals(503, get(e.port(), "/readyz").statusCode(), "stale");
            assertEquals(200, get(e.port(), "/healthz").statusCode(), "still alive");

            metrics.patchSent();
            metrics.apiError(429);
            metrics.labels(new io.nodelabeller.label.LabelSet(new java.util.TreeMap<>(), List.of(
                    new io.nodelabeller.label.LabelSet.Dropped(io.nodelabeller.label.Label.of("x/y", "a b", "local", ""),
                            "bad value"))), 0);
            metrics.discovery(List.of(new SourceStatus("nvidia", List.of("GPU 1: 15 GPU is lost"), null)));
            metrics.configWarnings(2);
            String body = get(e.port(), "/metrics").body();
            for (String expected : List.of(
                    "node_labeller_cycle_duration_seconds_count 2",
                    "node_labeller_patches_sent_total 1.0",
                    "node_labeller_api_errors_total{status=\"429\"} 1.0",
                    "node_labeller_publishes_total{publisher=\"node\",result=\"failed\"} 1.0",
                    "node_labeller_publishes_total{publisher=\"node\",result=\"unchanged\"} 1.0",
                    "node_labeller_source_errors_total{source=\"nvidia\"} 2.0",
                    "node_labeller_source_warnings_total{source=\"nvidia\"} 1.0",
                    "node_labeller_nvml_errors_total 3.0",
                    "node_labeller_invalid_labels_dropped_total{source=\"local\"} 1.0",
                    "node_labeller_labels_kept 0",
                    "node_labeller_config_warnings 2.0",
                    "node_labeller_last_successful_publish_timestamp_seconds "
                            + (double) (clock.instant().minus(window.plusSeconds(1)).getEpochSecond()))) {
                assertTrue(body.contains(expected), "missing '" + expected + "' in\n" + body);
            }
        }
    }

    @Test
    void labelsBySourceFollowTheLastCycle() throws Exception {
        Metrics metrics = new Metrics();
        FakeSource kernel = new FakeSource("kernel");
        FakeSource pci = new FakeSource("pci");
        Cycle cycle = new Cycle(Fakes.discovery(kernel, pci), Fakes.labelling("kernel", "pci"),
                Retention.initial(0), List.of(new RecordingPublisher("p")), metrics,
                new ManualClock());
        try (Endpoints e = Endpoints.start(loopback(), metrics.registry(), () -> true)) {
            cycle.run();
            String body = get(e.port(), "/metrics").body();
            assertTrue(body.contains("node_labeller_labels{source=\"pci\"} 1"), body);
            assertTrue(body.contains("node_labeller_labels{source=\"kernel\"} 1"), body);
            pci.fail = true;
            cycle.run();
            body = get(e.port(), "/metrics").body();
            assertTrue(!body.contains("node_labeller_labels{source=\"pci\"}"), "pci has no labels any more:\n" + body);
        }
    }

    /** build_info, and the error series at zero before any failure, so that alerts on their increase work at once. */
    @Test
    void buildInfoAndZeroSeriesBeforeTheFirstCycle() throws Exception {
        Metrics metrics = new Metrics();
        metrics.buildInfo("1.2.3", "0a1b2c3", "17.0.13+11");
        metrics.knownSources(List.of("pci", "nvidia"), List.of("pci", "custom"));
        try (Endpoints e = Endpoints.start(loopback(), metrics.registry(), () -> true)) {
            String body = get(e.port(), "/metrics").body();
            for (String expected : List.of(
                    "node_labeller_build_info{jvm=\"17.0.13+11\",revision=\"0a1b2c3\",version=\"1.2.3\"} 1.0",
                    "node_labeller_source_errors_total{source=\"nvidia\"} 0.0",
                    "node_labeller_source_warnings_total{source=\"pci\"} 0.0",
                    "node_labeller_invalid_labels_dropped_total{source=\"custom\"} 0.0",
                    "node_labeller_nvml_errors_total 0.0")) {
                assertTrue(body.contains(expected), expected + " in\n" + body);
            }
        }
    }

    /** The example PrometheusRule's alerts name only metrics the agent exports (a misspelt one would never fire). */
    @Test
    void theExampleAlertsUseMetricsTheAgentExports() throws Exception {
        Metrics metrics = new Metrics();
        metrics.buildInfo("v", "r", "j");
        java.util.Set<String> exported = new java.util.TreeSet<>();
        metrics.registry().scrape().forEach(s -> exported.add(s.getMetadata().getPrometheusName()));
        exported.add("node_labeller_nvml_up"); // registered at the first discovery in which the nvidia source ran
        String rule = java.nio.file.Files.readString(java.nio.file.Path.of("manifests/examples/prometheus-rule.yaml"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("node_labeller_[a-z_]+").matcher(
                rule.lines().filter(l -> l.trim().startsWith("expr:")).collect(java.util.stream.Collectors.joining("\n")));
        int found = 0;
        while (m.find()) {
            found++;
            String name = m.group().replaceAll("_total$", "");
            assertTrue(exported.contains(name), m.group() + " is not exported; exported: " + exported);
        }
        assertTrue(found >= 5, "the example has its alerts");
    }

    /** daemon.runtimeMetrics: the client's standard JVM and process metrics, only when asked for. */
    @Test
    void runtimeMetricsOnlyWhenAskedFor() {
        java.util.Set<String> without = new java.util.TreeSet<>();
        new Metrics().registry().scrape().forEach(s -> without.add(s.getMetadata().getPrometheusName()));
        assertTrue(without.stream().noneMatch(n -> n.startsWith("jvm_") || n.startsWith("process_")), without.toString());
        java.util.Set<String> with = new java.util.TreeSet<>();
        new Metrics().withRuntimeMetrics().registry().scrape().forEach(s -> with.add(s.getMetadata().getPrometheusName()));
        for (String name : java.util.List.of("process_resident_memory_bytes", "process_cpu_seconds", "jvm_memory_used_bytes",
                "jvm_threads_current", "jvm_gc_collection_seconds", "jvm_runtime")) {
            assertTrue(with.contains(name), name + " in " + with);
        }
    }
}
