package io.nodelabeller.source.local;

import io.nodelabeller.config.SourceSection;
import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NFD's {@code local} source: feature files in {@code /etc/kubernetes/node-feature-discovery/features.d/} on the
 * host. Every non-hidden regular file of at most 64 KiB is read, in name order, later files overriding earlier
 * keys. Features {@code local.label} (keys that become labels) and {@code local.feature} (all keys not marked
 * {@code # +no-feature}). The file format is in {@link FeatureFile}.
 *
 * <p>The file node-labeller itself writes there ({@code publish.featuresFile}) is not read back: its labels
 * would otherwise come back as local labels and outlive the features that produced them. That setting is a path
 * of the agent's own file system (the publisher writes it there, wherever the host's features.d is mounted), so a
 * file is recognised as ours when it <em>is</em> that file — same path, or the same file reached through another
 * mount or link — never by comparing a host path with an agent path.
 */
public final class LocalSource implements Source {

    /** The source's name: its line in the catalog, the first part of its feature keys, the tag of its labels. */
    public static final String NAME = "local";

    public static final String DIR = "/etc/kubernetes/node-feature-discovery/features.d";
    /** {@code sources.local}: no options, as in NFD ({@code local: {}}). */
    public static final SourceSection<SourceSection.NoOptions> SECTION = SourceSection.noOptions("local");
    /** NFD's MaxFeatureFileSize: larger files are skipped whole. */
    public static final long MAX_FILE_BYTES = 64 * 1024;

    private final Clock clock;
    private final Path ownOutput;

    /**
     * @param clock     decides which {@code # +expiry-time} entries have passed
     * @param ownOutput the features file node-labeller publishes to, as a path of the agent's file system
     *                  ({@code null} when none): skipped
     */
    public LocalSource(Clock clock, Path ownOutput) {
        this.clock = clock;
        this.ownOutput = ownOutput == null ? null : ownOutput.toAbsolutePath().normalize();
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws IOException {
        Features.Builder b = Features.builder(NAME);
        if (!host.isDirectory(DIR)) {
            return b.build();
        }
        Instant now = clock.instant();
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> features = new LinkedHashMap<>();
        List<String> names = host.list(DIR);
        for (String name : names) {
            if (name.startsWith(".")) {
                continue;
            }
            String hostPath = DIR + "/" + name;
            if (!host.isRegularFile(hostPath) || (ownOutput != null && host.isSameFile(hostPath, ownOutput))) {
                continue;
            }
            String text;
            try {
                long size = host.size(hostPath);
                if (size > MAX_FILE_BYTES) {
                    warnings.warn(hostPath + ": skipped, " + size + " bytes is over the " + MAX_FILE_BYTES + " byte limit");
                    continue;
                }
                text = host.read(hostPath);
            } catch (IOException | RuntimeException e) {
                warnings.warn(hostPath + ": skipped, cannot read: " + HostFs.reason(e));
                continue;
            }
            FeatureFile parsed = FeatureFile.parse(text, now, message -> warnings.warn(hostPath + ": " + message));
            labels.putAll(parsed.labels());
            features.putAll(parsed.features());
        }
        b.attributes("label", labels).attributes("feature", features);
        String origin = host.path(DIR).toString();
        b.origin("label", origin).origin("feature", origin);
        return b.build();
    }
}
