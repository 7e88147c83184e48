package io.nodelabeller.source;

import io.nodelabeller.feature.Features;
import io.nodelabeller.feature.Snapshot;
import io.nodelabeller.feature.SourceStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs sources one after another; a source that fails costs only its own features. */
public final class Discovery {

    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);

    private final HostFs host;
    private final List<Source> sources;
    /** What was logged for each source in the last discovery: problems are logged when they start, not every cycle. */
    private final Map<String, Set<String>> lastProblems = new HashMap<>();

    public Discovery(HostFs host, List<Source> sources) {
        this.host = host;
        this.sources = List.copyOf(sources);
    }

    public List<Source> sources() {
        return sources;
    }

    /**
     * Runs every source once. A source that throws costs only its own features; one that throws
     * {@link SourceFailure} still contributes the features that say why. Warnings and failures are logged when
     * they first appear (and a recovery once), so that a daemon cycling every minute does not repeat itself.
     */
    public synchronized Snapshot discover() {
        Features all = Features.empty();
        Map<String, SourceStatus> statuses = new LinkedHashMap<>();
        for (Source source : sources) {
            List<String> warnings = new ArrayList<>();
            long start = System.nanoTime();
            String error = null;
            try {
                all = all.merge(source.discover(host, warnings::add));
            } catch (SourceFailure e) {
                error = e.getMessage();
                all = all.merge(e.known());
            } catch (Exception | LinkageError e) {
                error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                LOG.debug("source {} failure", source.name(), e);
            }
            report(source.name(), warnings, error);
            statuses.put(source.name(), new SourceStatus(source.name(), warnings, error, System.nanoTime() - start));
        }
        return Snapshot.of(all, statuses);
    }

    private void report(String source, List<String> warnings, String error) {
        Set<String> now = new LinkedHashSet<>();
        if (error != null) {
            now.add("failed, its labels are left out of this discovery (earlier ones are kept for a while): " + error);
        }
        warnings.forEach(now::add);
        Set<String> before = lastProblems.getOrDefault(source, Set.of());
        for (String problem : now) {
            if (!before.contains(problem)) {
                LOG.warn("source {}: {}", source, problem);
            }
        }
        if (error == null && before.stream().anyMatch(p -> p.startsWith("failed,"))) {
            LOG.info("source {}: discovers again", source);
        }
        lastProblems.put(source, now);
    }
}
