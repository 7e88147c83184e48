package io.nodelabeller.cli;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labelers;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Sources;

/** One discovery and labelling, without any publishing: what print and explain show. */
record Discover(Snapshot snapshot, LabelSet labels) {

    static Discover once(Config config, Options options) {
        Discovery discovery = discovery(config, options);
        Labelling labelling = Labelers.labelling(config, options);
        Snapshot snapshot = discovery.discover();
        return new Discover(snapshot, labelling.label(snapshot.features()));
    }

    /** The enabled sources under the host root; throws IllegalArgumentException naming an unknown source. */
    static Discovery discovery(Config config, Options options) {
        return new Discovery(new HostFs(options.hostRoot()), Sources.create(config, options,
                options.sources() != null ? options.sources() : config.core().featureSources()));
    }
}
