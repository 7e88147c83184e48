package io.nodelabeller.source;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.feature.SourceStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs sources one after another; a source that fails costs only its own features. */
public final class Discovery {

    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);

    private final HostFs host;
    private final List<Source> sources;

    public Discovery(HostFs host, List<Source> sources) {
        this.host = host;
        this.sources = List.copyOf(sources);
    }

    public List<Source> sources() {
        return sources;
    }

    public Snapshot discover() {
        Features all = Features.empty();
        Map<String, SourceStatus> statuses = new LinkedHashMap<>();
        for (Source source : sources) {
            List<String> warnings = new ArrayList<>();
            long start = System.nanoTime();
            String error = null;
            try {
                Features found = source.discover(host, message -> {
                    warnings.add(message);
                    LOG.warn("source {}: {}", source.name(), message);
                });
                all = all.merge(found);
            } catch (Exception | LinkageError e) {
                error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                LOG.warn("source {} failed, its labels are left out of this discovery: {}", source.name(), error);
                LOG.debug("source {} failure", source.name(), e);
            }
            statuses.put(source.name(), new SourceStatus(source.name(), warnings, error, System.nanoTime() - start));
        }
        return Snapshot.of(all, statuses);
    }
}
