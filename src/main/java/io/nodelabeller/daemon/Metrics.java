package io.nodelabeller.daemon;

import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.prometheus.metrics.config.MetricsProperties;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The daemon's Prometheus metrics, in a registry of their own; the client's standard JVM and process metrics are
 * added by {@link #withRuntimeMetrics()} (daemon.runtimeMetrics).
 * {@link #patchSent()} and {@link #apiError(int)} are meant for the node publisher's listener, which sees every
 * request including retries; everything else is recorded by {@link Cycle}.
 */
public final class Metrics {

    /** The source whose failures and warnings are also counted as NVML errors. */
    static final String NVML_SOURCE = "nvidia";

    /**
     * The client's settings, made here rather than read by {@code PrometheusProperties.get()} from system properties, a
     * properties file and the environment: metrics without exemplars. An exemplar ties a sample to a trace, and the
     * agent has no traces; with them on, every metric keeps an exemplar sampler and the client starts a scheduler thread.
     */
    static final PrometheusProperties PROPERTIES = PrometheusProperties.builder()
            .defaultMetricsProperties(MetricsProperties.builder().exemplarsEnabled(false).build())
            .build();

    private final PrometheusRegistry registry = new PrometheusRegistry();

    private final Histogram cycleDuration = Histogram.builder(PROPERTIES)
            .name("node_labeller_cycle_duration_seconds")
            .help("Time of one cycle: discovery, labelling and publishing.")
            .classicOnly()
            .classicUpperBounds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
            .register(registry);
    private final Gauge labels = Gauge.builder(PROPERTIES)
            .name("node_labeller_labels")
            .help("Labels published in the last cycle, by the source (labeler) that produced them.")
            .labelNames("source")
            .register(registry);
    private final Gauge keptLabels = Gauge.builder(PROPERTIES)
            .name("node_labeller_labels_kept")
            .help("Labels of the last cycle kept from an earlier cycle because their source failed (publish.staleAfter).")
            .register(registry);
    private final Counter patchesSent = Counter.builder(PROPERTIES)
            .name("node_labeller_patches_sent_total")
            .help("Patches sent to the Node (only sent when something differs).")
            .register(registry);
    private final Counter apiErrors = Counter.builder(PROPERTIES)
            .name("node_labeller_api_errors_total")
            .help("Kubernetes API errors, by HTTP status (0: no response).")
            .labelNames("status")
            .register(registry);
    private final Counter publishes = Counter.builder(PROPERTIES)
            .name("node_labeller_publishes_total")
            .help("Publish calls per output and result: written, unchanged or failed.")
            .labelNames("publisher", "result")
            .register(registry);
    private final Counter sourceErrors = Counter.builder(PROPERTIES)
            .name("node_labeller_source_errors_total")
            .help("Sources that failed as a whole during a discovery.")
            .labelNames("source")
            .register(registry);
    private final Counter sourceWarnings = Counter.builder(PROPERTIES)
            .name("node_labeller_source_warnings_total")
            .help("Single features or devices a source could not read.")
            .labelNames("source")
            .register(registry);
    private final Counter nvmlErrors = Counter.builder(PROPERTIES)
            .name("node_labeller_nvml_errors_total")
            .help("NVML failures: the nvidia source failing as a whole or losing one GPU or call.")
            .register(registry);
    private final Counter dropped = Counter.builder(PROPERTIES)
            .name("node_labeller_invalid_labels_dropped_total")
            .help("Labels dropped because they were invalid or not whitelisted, counted every cycle they were produced.")
            .labelNames("source")
            .register(registry);
    private final Gauge buildInfo = Gauge.builder(PROPERTIES)
            .name("node_labeller_build_info")
            .help("Always 1: the version, source revision and Java runtime of this agent.")
            .labelNames("version", "revision", "jvm")
            .register(registry);
    private final Gauge configWarnings = Gauge.builder(PROPERTIES)
            .name("node_labeller_config_warnings")
            .help("What the config accepted as NFD does, with a warning: unknown source names or device label fields,"
                    + " custom.d rule files skipped. check-config lists them.")
            .register(registry);
    private final Counter configReloads = Counter.builder(PROPERTIES)
            .name("node_labeller_config_reloads_total")
            .help("Reloads of the config after its files changed (run), by result: success, or failure (the last good"
                    + " config stays in use).")
            .labelNames("result")
            .register(registry);
    private final Gauge configLastReload = Gauge.builder(PROPERTIES)
            .name("node_labeller_config_last_reload_success_timestamp_seconds")
            .help("Unix time the config in use was loaded (start-up or the last successful reload).")
            .register(registry);
    private final Gauge configReloadFailing = Gauge.builder(PROPERTIES)
            .name("node_labeller_config_reload_failing")
            .help("1 while the config files hold a config that cannot be used (the last good one is in use), else 0.")
            .register(registry);
    private final Gauge lastPublish = Gauge.builder(PROPERTIES)
            .name("node_labeller_last_successful_publish_timestamp_seconds")
            .help("Unix time of the end of the last cycle in which every output was published.")
            .register(registry);

    /** Registered when NodeFeatureRule objects are read (run/once publishing to the node). */
    private final Gauge ruleObjectsState = Gauge.builder(PROPERTIES)
            .name("node_labeller_nodefeaturerules_state")
            .help("1 for the state of reading NodeFeatureRule objects: starting, synced, absent (no CRD), forbidden"
                    + " (RBAC), failing; 0 for the others.")
            .labelNames("state")
            .build();
    /** Registered when the node's ResourceSlices are read (a GPU node, publishing to the node). */
    private final Gauge resourceSlicesState = Gauge.builder(PROPERTIES)
            .name("node_labeller_resourceslices_state")
            .help("1 for the state of reading the node's ResourceSlices of the NVIDIA DRA driver: starting, synced, absent"
                    + " (no resource.k8s.io/v1), forbidden (RBAC), failing; 0 for the others.")
            .labelNames("state")
            .build();
    /** The state gauges registered so far: each when first set. */
    private final java.util.Set<Gauge> stateGauges = new java.util.HashSet<>();

    /** Registered at the first discovery in which the nvidia source ran: absent where NVML is never tried. */
    private final Gauge nvmlUp = Gauge.builder(PROPERTIES)
            .name("node_labeller_nvml_up")
            .help("1 when NVML was loaded and initialised in the last discovery, 0 when it could not be.")
            .build();
    private boolean nvmlUpRegistered;

    private final Set<String> labelSources = new HashSet<>();

    /**
     * Adds the Prometheus client's standard {@code jvm_*} and {@code process_*} metrics (JvmMetrics, which includes
     * ProcessMetrics: resident memory, CPU seconds, open file descriptors) to this registry. Once per registry.
     */
    public Metrics withRuntimeMetrics() {
        JvmMetrics.builder(PROPERTIES).register(registry);
        return this;
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** One patch sent to the Node (call from the node publisher's listener). */
    public void patchSent() {
        patchesSent.inc();
    }

    /** One failed Kubernetes API request with HTTP {@code status}, 0 when there was no response. */
    public void apiError(int status) {
        apiErrors.labelValues(Integer.toString(status)).inc();
    }

    void cycleDuration(long nanos) {
        cycleDuration.observe(nanos / 1e9);
    }

    void discovery(Collection<SourceStatus> statuses) {
        for (SourceStatus s : statuses) {
            if (!s.ok()) {
                sourceErrors.labelValues(s.source()).inc();
            }
            if (!s.warnings().isEmpty()) {
                sourceWarnings.labelValues(s.source()).inc(s.warnings().size());
            }
            if (NVML_SOURCE.equals(s.source())) {
                nvmlErrors.inc((s.ok() ? 0 : 1) + s.warnings().size());
            }
        }
    }

    synchronized void nvml(NvmlState state) {
        if (!state.ran()) {
            return;
        }
        if (!nvmlUpRegistered) {
            registry.register(nvmlUp);
            nvmlUpRegistered = true;
        }
        nvmlUp.set(state.up() ? 1 : 0);
    }

    synchronized void labels(LabelSet published, int kept) {
        Map<String, Integer> bySource = new TreeMap<>();
        for (Label l : published.labels().values()) {
            bySource.merge(String.valueOf(l.source()), 1, Integer::sum);
        }
        for (String gone : labelSources) {
            if (!bySource.containsKey(gone)) {
                labels.remove(gone);
            }
        }
        labelSources.clear();
        labelSources.addAll(bySource.keySet());
        bySource.forEach((source, n) -> labels.labelValues(source).set(n));
        keptLabels.set(kept);
        for (LabelSet.Dropped d : published.dropped()) {
            dropped.labelValues(String.valueOf(d.label().source())).inc();
        }
    }

    void published(String publisher, String result) {
        publishes.labelValues(publisher, result).inc();
    }

    void lastSuccessfulPublish(Instant when) {
        lastPublish.set(when.toEpochMilli() / 1000.0);
    }

    /**
     * The config in use was loaded at {@code when} (start-up: {@code reload} false, counting nothing), or a reload
     * failed ({@code ok} false) and the one in use stays. Both result series exist from the start, at zero.
     */
    public void configLoaded(boolean reload, boolean ok, Instant when) {
        if (reload) {
            configReloads.labelValues(ok ? "success" : "failure").inc();
        } else {
            configReloads.labelValues("success");
            configReloads.labelValues("failure");
        }
        configReloadFailing.set(ok ? 0 : 1);
        if (ok) {
            configLastReload.set(when.toEpochMilli() / 1000.0);
        }
    }

    /** Where reading NodeFeatureRule objects stands ({@code state} lower-case); the other states are set to 0. */
    public synchronized void ruleObjects(String state, Collection<String> states) {
        state(ruleObjectsState, state, states);
    }

    /** Where reading the node's ResourceSlices stands ({@code state} lower-case); the other states are set to 0. */
    public synchronized void resourceSlices(String state, Collection<String> states) {
        state(resourceSlicesState, state, states);
    }

    private void state(Gauge gauge, String state, Collection<String> states) {
        if (stateGauges.add(gauge)) {
            registry.register(gauge);
        }
        for (String s : states) {
            gauge.labelValues(s).set(s.equals(state) ? 1 : 0);
        }
    }

    /** The warnings of the config in use (0 when it loaded cleanly). */
    public void configWarnings(int count) {
        configWarnings.set(count);
    }

    /** {@code node_labeller_build_info{version,revision,jvm} 1}. */
    public void buildInfo(String version, String revision, String jvm) {
        buildInfo.labelValues(version, revision, jvm).set(1);
    }

    /**
     * Creates the per-source error and warning series and the per-labeler dropped-label series at zero, so that an
     * alert on their increase works from the first scrape, before the first failure.
     */
    public void knownSources(Collection<String> sources, Collection<String> labelers) {
        for (String s : sources) {
            sourceErrors.labelValues(s);
            sourceWarnings.labelValues(s);
        }
        for (String l : labelers) {
            dropped.labelValues(l);
        }
    }
}
