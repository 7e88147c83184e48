package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.DevicePluginConfigs;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.daemon.Cycle;
import io.nodelabeller.daemon.Metrics;
import io.nodelabeller.daemon.Retention;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Role;
import io.nodelabeller.publish.Part;
import io.nodelabeller.source.nvidia.NvidiaSource;
import io.nodelabeller.source.dra.DraSource;
import io.nodelabeller.feature.DeviceSlices;
import io.nodelabeller.source.pci.PciSource;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import picocli.CommandLine;

import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What run and once share: the config, the outputs and the cycle, set up with the right exit code for every
 * problem (2: config or usage, 1: runtime). Close it to close the outputs.
 */
final class CycleSetup implements AutoCloseable {

    final Config config;
    /** The node's device plugin config among {@code --device-plugin-config-dir}'s, or null without that option. */
    final DevicePluginConfigs.Choice devicePluginChoice;
    final Metrics metrics;
    final Outputs outputs;
    final Cycle cycle;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** What a change of NodeFeatureRule objects or of the node's ResourceSlices runs: run sets it to a cycle now. */
    final AtomicReference<Runnable> onRuleObjectsChange;
    /** The node's ResourceSlices as the {@code dra} source reads them (a reload's sources read the same). */
    final DeviceSlices.Deferred slices;

    private CycleSetup(Config config, DevicePluginConfigs.Choice devicePluginChoice, Metrics metrics, Outputs outputs,
                       Cycle cycle, AtomicReference<Runnable> onRuleObjectsChange, DeviceSlices.Deferred slices) {
        this.onRuleObjectsChange = onRuleObjectsChange;
        this.slices = slices;
        this.config = config;
        this.devicePluginChoice = devicePluginChoice;
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
        // Logging is set up on this thread before any other starts: SLF4J hands a thread that asks for a logger while
        // another is setting logging up a stand-in that records everything, trace included (and replays it later with
        // a line on stderr); fabric8's HTTP client, built on the early client's thread, asks once whether trace is
        // on and, if so, logs every request and response for the life of the process.
        LoggerFactory.getILoggerFactory();
        // what a change of NodeFeatureRule objects runs: nothing until run sets it to a cycle now
        AtomicReference<Runnable> onRuleObjectsChange = new AtomicReference<>(() -> { });
        // the node's ResourceSlices: known once the outputs (the API client) are set up below
        DeviceSlices.Deferred slices = new DeviceSlices.Deferred();
        Config config;
        Discovery discovery;
        Labelling labelling;
        // the device plugin config a node without the label would use; the node's own choice is known below
        DevicePluginConfigs.Choice unlabelled = common.devicePluginChoice(null);
        EarlyClient early = null;
        try {
            config = common.loadConfig(unlabelled);
            // the Kubernetes client, when an output needs it, is built while the rest is set up and the host discovered
            early = Outputs.needsClient(config.core(), config.publish(), kube) ? EarlyClient.start(kube) : null;
            discovery = Inspection.discovery(config, common.options(), slices);
            labelling = Catalog.labelling(config, common.options());
        } catch (ConfigException e) {
            EarlyClient.discard(early);
            throw new CommandFailed(ConfigErrors.report(spec, e));
        } catch (IllegalArgumentException e) {
            EarlyClient.discard(early);
            throw new CommandFailed(configError(spec, common, e));
        }
        // the host is read while the Kubernetes client starts and the node is read: the first labels come sooner
        discovery.startEarly();
        Metrics metrics = new Metrics();
        metrics.buildInfo(Main.version(), Main.revision(), Runtime.version().toString());
        Outputs outputs;
        try {
            outputs = Outputs.create(config.core(), config.publish(), kube, early, Environment.of(spec), metrics, daemon,
                    part(config, common.options(), labelling));
        } catch (Outputs.Unavailable e) {
            discovery.stop();
            spec.commandLine().getErr().println("node-labeller " + spec.name() + ": " + e.getMessage());
            throw new CommandFailed(e.usage ? Main.USAGE : Main.FAILURE);
        }
        // NodeFeatureRule objects: run watches them (a change runs a cycle at once), once lists them, while the node
        // is read below; the first cycle applies them: once waits for its list to end, run for its first read briefly
        outputs.readRuleObjects(daemon, () -> onRuleObjectsChange.get().run());
        // Read before the first cycle (it seeds the node view): the labels owned on the node, and the node's choice
        // among the device plugin's named configs (--device-plugin-config-dir)
        Map<LabelSet.Kind, ? extends Map<String, String>> owned = outputs.ownedOnNode();
        // the node's ResourceSlices (the dra source), read on a GPU node (the node is seen now): a change runs a cycle
        slices.set(Catalog.selectSources(Inspection.sourceSelection(config, common.options()), common.options().role())
                .contains(DraSource.NAME) ? outputs.readResourceSlices(daemon, kube.nodeName,
                () -> onRuleObjectsChange.get().run(), metrics) : DeviceSlices.NONE);
        DevicePluginConfigs.Choice choice = common.devicePluginChoice(outputs.nodeLabel(DevicePluginConfigs.NODE_LABEL));
        if (choice != null) {
            choice.warnings().forEach(w -> LoggerFactory.getLogger(CycleSetup.class).warn("{}", w));
        }
        if (choice != null && !choice.name().equals(unlabelled.name())) { // else loaded above already
            discovery.stop(); // the early discovery ran the unlabelled config's sources
            try {
                config = common.loadConfig(choice);
                discovery = Inspection.discovery(config, common.options(), slices);
                labelling = Catalog.labelling(config, common.options());
            } catch (ConfigException e) {
                outputs.close();
                throw new CommandFailed(ConfigErrors.report(spec, e));
            } catch (IllegalArgumentException e) {
                outputs.close();
                throw new CommandFailed(configError(spec, common, e));
            }
        }
        awaitRuleObjects(outputs);
        if (outputs.ruleObjects() != null) { // the objects' rules run last
            labelling = Catalog.labelling(config, common.options(), outputs.ruleObjects());
        }
        metrics.configWarnings(config.warnings().size());
        metrics.configLoaded(false, true, Clock.systemUTC().instant());
        metrics.knownSources(Catalog.selectSources(Inspection.sourceSelection(config, common.options()), common.options().role()),
                Catalog.selectLabelers(config.core().labelSources(), common.options().role()));
        // Labels owned on the node before this process started are kept like labels of the last cycle, so that a
        // restart whose first discovery has a failing source removes nothing (never remove on uncertainty).
        // The GPU agent keeps GFD's labels while NVML fails, however long, as GFD does while it crash-loops (a driver
        // being installed): the host agent removes them once the PCI bus shows no NVIDIA GPU.
        Retention retention = Retention.initial(config.publish().staleAfter(),
                common.options().role() == Role.GPU ? Set.of(NvidiaSource.NAME) : Set.of());
        for (Map.Entry<LabelSet.Kind, ? extends Map<String, String>> e : owned.entrySet()) {
            retention = retention.withPrevious(e.getKey(), e.getValue());
        }
        Cycle cycle = new Cycle(discovery, labelling, retention, outputs.publishers(), metrics, Clock.systemUTC(),
                config.devicePlugin().failOnInitErrorOrDefault());
        return new CycleSetup(config, choice, metrics, outputs, cycle, onRuleObjectsChange, slices);
    }

    /**
     * The part of the install's labels this agent keeps: its role's, and for the host agent whether the absence of
     * {@code nvidia.com/gpu.present} among its labels means "no GPU" (it runs the pci source and the nvidia labeler,
     * and the whitelist keeps the label).
     */
    static Part part(Config config, io.nodelabeller.config.Options options, Labelling labelling) {
        Role role = options.role();
        if (role == Role.ALL) {
            return Part.ALL;
        }
        boolean presenceKnown = role == Role.HOST
                && Catalog.selectSources(Inspection.sourceSelection(config, options), role).contains(PciSource.NAME)
                && Catalog.selectLabelers(config.core().labelSources(), role).contains(NvidiaSource.NAME)
                && labelling.admits(Part.PRESENT, "true");
        return new Part(role, Catalog.gpuLabel(), presenceKnown, Catalog.sliceLabel());
    }

    /** How long the first cycle of run waits for the NodeFeatureRule objects' first LIST. */
    static final java.time.Duration RULE_OBJECTS_FIRST_READ = java.time.Duration.ofSeconds(2);

    private static void awaitRuleObjects(Outputs outputs) {
        try {
            outputs.awaitRuleObjects(RULE_OBJECTS_FIRST_READ);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }


    private static int configError(CommandLine.Model.CommandSpec spec, CommonOptions common, IllegalArgumentException e) {
        spec.commandLine().getErr().println("config error: " + (common.config == null ? "" : common.config + ": ")
                + e.getMessage());
        return Main.USAGE;
    }

    /** Idempotent: run's shutdown hook and its main thread may both get here. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            outputs.close();
        }
    }
}
