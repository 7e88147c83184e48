package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.daemon.Cycle;
import io.nodelabeller.daemon.Metrics;
import io.nodelabeller.daemon.Retention;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import picocli.CommandLine;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What run and once share: the config, the outputs and the cycle, set up with the right exit code for every
 * problem (2: config or usage, 1: runtime). Close it to close the outputs.
 */
final class CycleSetup implements AutoCloseable {

    final Config config;
    final Metrics metrics;
    final Outputs outputs;
    final Cycle cycle;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CycleSetup(Config config, Metrics metrics, Outputs outputs, Cycle cycle) {
        this.config = config;
        this.metrics = metrics;
        this.outputs = outputs;
        this.cycle = cycle;
    }

    /**
     * @param daemon true for {@code run} (the node publisher keeps a watch on the node between cycles), false for
     *               {@code once} (one cycle: a watch would be opened only to be closed)
     */
    static CycleSetup setUp(CommandLine.Model.CommandSpec spec, CommonOptions common, KubeOptions kube, boolean daemon)
            throws CommandFailed {
        kube.check();
        Config config;
        try {
            config = common.loadConfig();
        } catch (ConfigException e) {
            throw new CommandFailed(ConfigErrors.report(spec, e));
        }
        Discovery discovery;
        Labelling labelling;
        try {
            discovery = Inspection.discovery(config, common.options());
            labelling = Catalog.labelling(config, common.options());
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("config error: " + (common.config == null ? "" : common.config + ": ")
                    + e.getMessage());
            throw new CommandFailed(Main.USAGE);
        }
        Metrics metrics = new Metrics();
        metrics.configWarnings(config.warnings().size());
        metrics.configLoaded(false, true, Clock.systemUTC().instant());
        metrics.buildInfo(Main.version(), Main.revision(), Runtime.version().toString());
        metrics.knownSources(Catalog.selectSources(Inspection.sourceSelection(config, common.options())),
                Catalog.selectLabelers(config.core().labelSources()));
        Outputs outputs;
        try {
            outputs = Outputs.create(config.core(), config.publish(), kube, Environment.of(spec), metrics, daemon);
        } catch (Outputs.Unavailable e) {
            spec.commandLine().getErr().println("node-labeller " + spec.name() + ": " + e.getMessage());
            throw new CommandFailed(e.usage ? Main.USAGE : Main.FAILURE);
        }
        // Labels owned on the node before this process started are kept like labels of the last cycle, so that a
        // restart whose first discovery has a failing source removes nothing (never remove on uncertainty).
        Retention retention = Retention.initial(config.publish().staleAfter())
                .withPrevious(outputs.ownedOnNode());
        Cycle cycle = new Cycle(discovery, labelling, retention, outputs.publishers(), metrics, Clock.systemUTC(),
                config.devicePlugin().failOnInitErrorOrDefault());
        return new CycleSetup(config, metrics, outputs, cycle);
    }

    /** Idempotent: run's shutdown hook and its main thread may both get here. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            outputs.close();
        }
    }
}
