package io.nodelabeller.daemon;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.log.ProblemLog;
import io.nodelabeller.publish.PublishException;
import io.nodelabeller.publish.Publisher;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One cycle: discover every enabled source, label, apply {@link Retention}, and hand the result to
 * every publisher. Nothing a source, labeler or publisher does ends the cycle early or escapes it: a failing
 * publisher is logged, counted and retried at the next cycle, the others still publish. Runs are serialised.
 */
public final class Cycle {

    private static final Logger LOG = LoggerFactory.getLogger(Cycle.class);

    /**
     * How a cycle went: {@code ok} when every publisher succeeded; {@code failures} one line per problem;
     * {@code fatal} non-null when the process should stop with exit code 1 (nothing was published then).
     */
    public record Outcome(boolean ok, LabelSet labels, List<String> failures, String fatal) {
        public Outcome {
            failures = List.copyOf(failures);
        }

        public Outcome(boolean ok, LabelSet labels, List<String> failures) {
            this(ok, labels, failures, null);
        }
    }

    private final Discovery discovery;
    private Labelling labelling;
    private final List<Publisher> publishers;
    private final Metrics metrics;
    private final Clock clock;
    private boolean failOnNvmlInitError;

    private Retention retention;
    private final ProblemLog kept = new ProblemLog(LOG, null);
    /** Each publisher's failures, logged when they start and when they end. */
    private final java.util.Map<String, ProblemLog> publishing = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Instant lastSuccess;

    public Cycle(Discovery discovery, Labelling labelling, Retention initial, List<Publisher> publishers,
                 Metrics metrics, Clock clock) {
        this(discovery, labelling, initial, publishers, metrics, clock, false);
    }

    /**
     * {@code failOnNvmlInitError}: the device plugin's {@code flags.failOnInitError}. When NVML cannot be
     * initialised on a node with an NVIDIA GPU ({@link NvmlState#initFailedOnGpuNode()}), the cycle publishes
     * nothing and its outcome is {@code fatal}, so that the process exits 1 as GFD does. A library that does not
     * match the loaded driver (NVML error 18, {@link NvmlState#libraryMismatch()}) is fatal whatever the flag: only a
     * new container gets the upgraded driver's library.
     */
    public Cycle(Discovery discovery, Labelling labelling, Retention initial, List<Publisher> publishers,
                 Metrics metrics, Clock clock, boolean failOnNvmlInitError) {
        this.failOnNvmlInitError = failOnNvmlInitError;
        this.discovery = discovery;
        this.labelling = labelling;
        this.retention = initial;
        this.publishers = List.copyOf(publishers);
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * A reloaded config: other sources, labelers and NVML init rule from the next cycle on. Waits for a running
     * cycle, so that no cycle mixes the old and the new. Retention (labels of failed sources) carries over.
     */
    public synchronized void reconfigure(Map<String, ? extends Source> sources, Duration sourceTimeout,
                                         Labelling newLabelling, boolean newFailOnNvmlInitError) {
        discovery.reconfigure(sources, sourceTimeout);
        this.labelling = newLabelling;
        this.failOnNvmlInitError = newFailOnNvmlInitError;
    }

    public List<Publisher> publishers() {
        return publishers;
    }

    /** A scheduled cycle (and {@code once}'s). */
    public Outcome run() {
        return run(true);
    }

    /**
     * One cycle. {@code scheduled} false: one fired by a reloaded config or a changed file, which does not count
     * towards {@code publish.staleAfter} — a burst of edits must not expire a failed source's labels in seconds.
     */
    public synchronized Outcome run(boolean scheduled) {
        long start = System.nanoTime();
        try {
            return runTimed(scheduled);
        } finally {
            metrics.cycleDuration(System.nanoTime() - start);
        }
    }

    /** SIGTERM: a cycle in discovery stops at once and publishes nothing; one in publish finishes it. */
    public void stopDiscovering() {
        discovery.stop();
    }

    private Outcome runTimed(boolean scheduled) {
        LabelSet labels;
        Features features;
        try {
            Snapshot snapshot = discovery.discover();
            features = snapshot.features();
            metrics.discovery(snapshot.statuses().values());
            NvmlState nvml = NvmlState.of(snapshot);
            metrics.nvml(nvml);
            if (nvml.libraryMismatch()) {
                // not logged here either: run and once print it as their last line, and exit 1; the kubelet then
                // starts a new container, which the container runtime gives the new driver's library
                String why = "NVML's library does not match the loaded NVIDIA driver (" + nvml.error() + "): the driver"
                        + " changed after this container started; exiting so that a new container gets the new driver's"
                        + " library (the node's labels stay as they are)";
                return new Outcome(false, null, List.of(why), why);
            }
            if (failOnNvmlInitError && nvml.initFailedOnGpuNode()) {
                // not logged here: run and once print it as their last line, and exit 1
                String why = nvml.describe() + "; flags.failOnInitError is true: nothing published";
                return new Outcome(false, null, List.of(why), why);
            }
            Retention.Step step = retention.next(snapshot.statuses().values(), labelling.label(snapshot.features()),
                    scheduled);
            retention = step.next();
            labels = step.labels();
            metrics.labels(labels, step.kept().size());
            reportKept(step);
        } catch (Discovery.Stopped e) {
            LOG.info("stopping: discovery abandoned, nothing published in this cycle");
            return new Outcome(false, null, List.of("stopped during discovery"));
        } catch (RuntimeException e) {
            // Discovery and labelling catch per source and per labeler; this is a bug, but the daemon lives on.
            LOG.error("cycle failed before publishing, nothing published", e);
            return new Outcome(false, null, List.of("discovery or labelling: " + e));
        }
        List<String> failures = new ArrayList<>();
        for (Publisher p : publishers) {
            try {
                boolean written = p.publish(labels, features);
                metrics.published(p.name(), written ? "written" : "unchanged");
                LOG.debug("{}: {}", p.name(), written ? "written" : "unchanged");
                publishProblems(p).ok("publishing to " + p.name() + " works again");
            } catch (PublishException e) {
                metrics.published(p.name(), "failed");
                failures.add(p.name() + ": " + e.getMessage() + (e.status() > 0 ? " (HTTP " + e.status() + ")" : ""));
                // once when it starts (or its cause changes), not every cycle while the API server is away
                publishProblems(p).failed(e.status() > 0 ? "http-" + e.status() : e.getMessage(),
                        "publishing to " + p.name() + " failed, retrying every cycle: " + e.getMessage());
            } catch (RuntimeException e) {
                metrics.published(p.name(), "failed");
                failures.add(p.name() + ": " + e);
                LOG.warn("publishing to {} failed, retrying next cycle", p.name(), e);
            }
        }
        if (failures.isEmpty()) {
            lastSuccess = clock.instant();
            metrics.lastSuccessfulPublish(lastSuccess);
        }
        return new Outcome(failures.isEmpty(), labels, failures);
    }

    private ProblemLog publishProblems(Publisher p) {
        return publishing.computeIfAbsent(p.name(), n -> new ProblemLog(LOG, null));
    }

    /**
     * One line when the labels kept from an earlier cycle change (which, or the failed inputs they wait for), one
     * when none is kept any more; nothing while they stay the same.
     */
    private void reportKept(Retention.Step step) {
        if (step.kept().isEmpty()) {
            kept.ok("no label kept from an earlier cycle any more: their sources work again, or they went stale");
            return;
        }
        String line = "keeping " + step.kept().size() + " label(s) of failed source(s) " + step.keptFor()
                + " from an earlier cycle";
        kept.report(Map.of(step.kept().keySet() + " " + step.keptFor(), line), Level.INFO);
    }

    /** When the last cycle in which every publisher succeeded ended. */
    public Optional<Instant> lastSuccess() {
        return Optional.ofNullable(lastSuccess);
    }

    /** True when a cycle published successfully no longer than {@code window} ago (readiness). */
    public boolean succeededWithin(Duration window) {
        Instant last = lastSuccess;
        return last != null && !clock.instant().isAfter(last.plus(window));
    }
}
