package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import picocli.CommandLine;

/** One inspection of the host: a discovery and its labels, without any publishing (what print and explain show). */
record Inspection(Snapshot snapshot, LabelSet labels) {

    static Inspection once(Config config, Options options) {
        return once(config, options, null);
    }

    static Inspection once(Config config, Options options, io.nodelabeller.label.rules.RuleObjects objects) {
        Discovery discovery = discovery(config, options);
        Labelling labelling = Catalog.labelling(config, options, objects);
        Snapshot snapshot = discovery.discover();
        return new Inspection(snapshot, labelling.label(snapshot.features()));
    }

    /**
     * One discovery for print and explain: a config problem or an unknown source is printed and becomes
     * {@link CommandFailed} with exit code 2.
     */
    static Inspection forCommand(CommandLine.Model.CommandSpec spec, CommonOptions common,
                                 io.nodelabeller.label.rules.RuleObjects objects) throws CommandFailed {
        try {
            return once(common.loadConfig(), common.options(), objects);
        } catch (ConfigException e) {
            throw new CommandFailed(ConfigErrors.report(spec, e));
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("node-labeller: " + e.getMessage());
            throw new CommandFailed(Main.USAGE);
        }
    }

    /** The enabled sources under the host root; throws IllegalArgumentException naming an unknown source. */
    static Discovery discovery(Config config, Options options) {
        return discovery(config, options, io.nodelabeller.feature.DeviceSlices.NONE);
    }

    /** As {@link #discovery(Config, Options)}, the {@code dra} source reading {@code slices}. */
    static Discovery discovery(Config config, Options options, io.nodelabeller.feature.DeviceSlices slices) {
        return new Discovery(new HostFs(options.hostRoot()),
                Catalog.sources(config, options, sourceSelection(config, options), slices), config.core().sourceTimeout());
    }

    /** Which sources run: {@code --sources} when given, else {@code core.featureSources}. */
    static java.util.List<String> sourceSelection(Config config, Options options) {
        return options.sources() != null ? options.sources() : config.core().featureSources();
    }
}
