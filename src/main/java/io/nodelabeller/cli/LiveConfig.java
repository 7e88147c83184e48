package io.nodelabeller.cli;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
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
 * {@code core.noPublishFeatures}) are logged when they change and otherwise left as they were.
 */
final class LiveConfig implements ConfigWatch.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(LiveConfig.class);

    private final CommonOptions common;
    private final Options options;
    private final CycleSetup setup;
    private final Daemon daemon;
    private final Clock clock;
    private volatile Config current;
    private List<String> lastProblems = List.of();

    LiveConfig(CommonOptions common, CycleSetup setup, Daemon daemon, Clock clock) {
        this.common = common;
        this.options = common.options();
        this.setup = setup;
        this.daemon = daemon;
        this.clock = clock;
        this.current = setup.config;
    }

    /** What to watch for the config in use. */
    ConfigWatch.Watched watched() {
        Config c = current;
        List<Path> config = new ArrayList<>();
        if (common.config != null) {
            config.add(common.config);
        }
        if (common.devicePluginConfig != null) {
            config.add(common.devicePluginConfig);
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
    public void configChanged() {
        Config loaded;
        try {
            loaded = common.loadConfig();
            // built before anything is swapped: an unknown source name fails here, and nothing changes
            var sources = Catalog.sources(loaded, options, Inspection.sourceSelection(loaded, options));
            var labelling = Catalog.labelling(loaded, options);
            setup.cycle.reconfigure(sources, loaded.core().sourceTimeout(), labelling,
                    loaded.devicePlugin().failOnInitErrorOrDefault());
        } catch (ConfigException e) {
            failed(e.problems());
            return;
        } catch (IllegalArgumentException e) {
            failed(List.of(e.getMessage()));
            return;
        }
        for (String setting : restartOnly(current, loaded)) {
            LOG.warn("config reload: {} changed; it takes effect when the agent restarts", setting);
        }
        Config before = current;
        current = loaded;
        lastProblems = List.of();
        setup.metrics.configLoaded(true, true, clock.instant());
        setup.metrics.configWarnings(loaded.warnings().size());
        if (!before.core().sleepInterval().equals(loaded.core().sleepInterval())) {
            daemon.setInterval(loaded.core().sleepInterval());
        }
        LOG.info("config reloaded{}; running a cycle now", common.config == null ? "" : " from " + common.config);
        daemon.cycleNow();
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
        daemon.cycleNow();
    }

    /** The settings read only at start-up that differ between {@code a} and {@code b}. */
    static List<String> restartOnly(Config a, Config b) {
        List<String> changed = new ArrayList<>();
        if (!Objects.equals(a.daemon(), b.daemon())) {
            changed.add("daemon.port");
        }
        if (!Objects.equals(a.publish(), b.publish())) {
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
