package io.nodelabeller.cli;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.DevicePluginConfigs;
import io.nodelabeller.config.Options;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.daemon.ConfigWatch;
import io.nodelabeller.daemon.Daemon;
import io.nodelabeller.source.local.LocalSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code run}'s live configuration: when the config file, the device plugin's config file or custom.d change,
 * the config is loaded again and, when it is valid, its sources, labelers, rules and interval are used from a
 * cycle that starts at once; when it is not, the last good config stays, its problems are logged once and
 * {@code node_labeller_config_reload_failing} is 1. A change of features.d starts a cycle. Settings that need a
 * restart ({@code daemon}, {@code publish}, {@code core.noPublish}, {@code core.ownerRefs},
 * {@code core.noPublishFeatures}) are logged when they change and otherwise left as they were. With
 * {@code --device-plugin-config-dir}, the node's label picks the device plugin config, checked before every cycle.
 */
final class LiveConfig implements ConfigWatch.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(LiveConfig.class);

    private final CommonOptions common;
    private final Options options;
    private final CycleSetup setup;
    private final Clock clock;
    private volatile Daemon daemon;
    private volatile Config current;
    private DevicePluginConfigs.Choice choice;
    private List<String> lastProblems = List.of();

    LiveConfig(CommonOptions common, CycleSetup setup, Clock clock) {
        this.common = common;
        this.options = common.options();
        this.setup = setup;
        this.clock = clock;
        this.current = setup.config;
        this.choice = setup.devicePluginChoice;
    }

    /** The daemon whose interval and cycles a reload changes (set once it runs). */
    void attach(Daemon running) {
        this.daemon = running;
    }

    /** What to watch for the config in use. */
    ConfigWatch.Watched watched() {
        Config c = current;
        List<Path> config = new ArrayList<>();
        if (common.config != null) {
            config.add(common.config);
        }
        if (common.devicePluginConfig != null && common.readsDevicePlugin()) {
            config.add(common.devicePluginConfig);
        }
        if (common.devicePluginConfigDir != null && common.readsDevicePlugin()) {
            config.add(common.devicePluginConfigDir);
        }
        if (!c.core().customRulesDir().isEmpty()) {
            config.add(Path.of(c.core().customRulesDir()));
        }
        List<Path> host = new ArrayList<>();
        if (Catalog.selectSources(Inspection.sourceSelection(c, options)).contains(LocalSource.NAME)) {
            host.add(options.hostRoot().resolve(LocalSource.DIR.substring(1)));
        }
        Path own = c.publish().featuresFile().isEmpty() ? null : Path.of(c.publish().featuresFile());
        return new ConfigWatch.Watched(config, host, own);
    }

    @Override
    public synchronized void configChanged() {
        if (reload(nodeChoice())) {
            Daemon d = daemon;
            if (d != null) {
                d.cycleNow();
            }
        }
    }

    /**
     * Before each cycle: when the node's {@value DevicePluginConfigs#NODE_LABEL} label (as the node publisher last
     * saw it) now picks another of the device plugin's configs, that config is used from this cycle on.
     */
    synchronized void beforeCycle() {
        DevicePluginConfigs.Choice now = nodeChoice();
        if (now != null && choice != null && !now.name().equals(choice.name())) {
            LOG.info("device plugin config: '{}' instead of '{}' (node label {}={})", now.name(), choice.name(),
                    DevicePluginConfigs.NODE_LABEL, setup.outputs.nodeLabel(DevicePluginConfigs.NODE_LABEL));
            reload(now);
        }
    }

    /** The node's device plugin config now; null without --device-plugin-config-dir. */
    private DevicePluginConfigs.Choice nodeChoice() {
        return common.devicePluginChoice(setup.outputs.nodeLabel(DevicePluginConfigs.NODE_LABEL));
    }

    /** Loads the config with {@code dp} and, when it is valid, uses it from the next cycle on; true when it was. */
    private boolean reload(DevicePluginConfigs.Choice dp) {
        Config loaded;
        try {
            loaded = common.loadConfig(dp);
            // built before anything is swapped: an unknown source name fails here, and nothing changes
            var sources = Catalog.sources(loaded, options, Inspection.sourceSelection(loaded, options), setup.slices);
            var labelling = Catalog.labelling(loaded, options, setup.outputs.ruleObjects());
            setup.cycle.reconfigure(sources, loaded.core().sourceTimeout(), labelling,
                    loaded.devicePlugin().failOnInitErrorOrDefault());
        } catch (ConfigException e) {
            failed(e.problems());
            return false;
        } catch (IllegalArgumentException e) {
            failed(List.of(e.getMessage()));
            return false;
        }
        if (dp != null && (choice == null || !dp.warnings().equals(choice.warnings()))) {
            dp.warnings().forEach(w -> LOG.warn("{}", w));
        }
        for (String setting : restartOnly(current, loaded)) {
            LOG.warn("config reload: {} changed; it takes effect when the agent restarts", setting);
        }
        Config before = current;
        current = loaded;
        choice = dp;
        lastProblems = List.of();
        setup.metrics.configLoaded(true, true, clock.instant());
        setup.metrics.configWarnings(loaded.warnings().size());
        Daemon d = daemon;
        if (d != null && !before.core().sleepInterval().equals(loaded.core().sleepInterval())) {
            d.setInterval(loaded.core().sleepInterval());
        }
        LOG.info("config reloaded: {}", common.describeFiles(dp));
        return true;
    }

    private void failed(List<String> problems) {
        setup.metrics.configLoaded(true, false, clock.instant());
        if (!problems.equals(lastProblems)) {
            LOG.error("config reload failed, the last good config stays in use: {} problem(s)", problems.size());
            problems.forEach(p -> LOG.error("config error: {}", p));
        }
        lastProblems = List.copyOf(problems);
    }

    @Override
    public void hostFilesChanged() {
        LOG.info("features.d changed; running a cycle now");
        Daemon d = daemon;
        if (d != null) {
            d.cycleNow();
        }
    }

    /** The settings read only at start-up that differ between {@code a} and {@code b}. */
    static List<String> restartOnly(Config a, Config b) {
        List<String> changed = new ArrayList<>();
        if (a.daemon().port() != b.daemon().port()) {
            changed.add("daemon.port");
        }
        if (a.daemon().runtimeMetrics() != b.daemon().runtimeMetrics()) {
            changed.add("daemon.runtimeMetrics");
        }
        // the rule outputs (publish.annotations/taints/extendedResources) are part of the labelling: they apply live
        var pa = a.publish();
        var pb = b.publish();
        if (pa.node() != pb.node() || pa.staleAfter() != pb.staleAfter() || !Objects.equals(pa.nodeFeature(), pb.nodeFeature())
                || !pa.featuresFile().equals(pb.featuresFile()) || pa.nodeFeatureRules() != pb.nodeFeatureRules()
                || !pa.ruleChangeSpread().equals(pb.ruleChangeSpread())) {
            changed.add("publish");
        }
        if (a.core().noPublish() != b.core().noPublish()) {
            changed.add("core.noPublish");
        }
        if (!a.core().ownerRefs().equals(b.core().ownerRefs())) {
            changed.add("core.ownerRefs/noOwnerRefs");
        }
        if (!a.core().noPublishFeatures().equals(b.core().noPublishFeatures())) {
            changed.add("core.noPublishFeatures");
        }
        return changed;
    }
}
