package io.nodelabeller.source.local;

import io.nodelabeller.source.Source;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One NFD feature file. Lines are trimmed; blank lines are ignored; {@code key} means {@code key=true} and
 * {@code key=value} splits on the first '='. Lines starting with '#' are comments, except the directives
 * starting with {@code "# +"}:
 * <ul>
 *   <li>{@code # +expiry-time=<RFC 3339>}: key lines after it are ignored once that time has passed, until
 *       the next expiry directive; an unparsable time is a warning and the previous expiry stays;</li>
 *   <li>{@code # +no-label}: the next key line becomes a feature only;</li>
 *   <li>{@code # +no-feature}: the next key line becomes a label only;</li>
 *   <li>anything else is a warning ("unknown feature file directive").</li>
 * </ul>
 */
record FeatureFile(Map<String, String> labels, Map<String, String> features) {

    private static final String DIRECTIVE = "# +";

    static FeatureFile parse(String text, Instant now, Source.Warnings warnings) {
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> features = new LinkedHashMap<>();
        Instant expiry = null;
        boolean noLabel = false;
        boolean noFeature = false;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                if (!line.startsWith(DIRECTIVE)) {
                    continue;
                }
                String directive = line.substring(DIRECTIVE.length());
                int eq = directive.indexOf('=');
                String name = eq < 0 ? directive : directive.substring(0, eq);
                switch (name) {
                    case "expiry-time" -> {
                        String value = eq < 0 ? "" : directive.substring(eq + 1).strip();
                        try {
                            expiry = OffsetDateTime.parse(value).toInstant();
                        } catch (DateTimeParseException e) {
                            warnings.warn("line " + (i + 1) + ": expiry-time '" + value
                                    + "' is not an RFC 3339 time (such as 2030-01-31T12:00:00Z); the previous expiry applies");
                        }
                    }
                    case "no-label" -> noLabel = true;
                    case "no-feature" -> noFeature = true;
                    default -> warnings.warn("line " + (i + 1) + ": unknown feature file directive '" + name + "'");
                }
                continue;
            }
            if (expiry != null && expiry.isBefore(now)) {
                continue;
            }
            int eq = line.indexOf('=');
            String key = eq < 0 ? line : line.substring(0, eq);
            String value = eq < 0 ? "true" : line.substring(eq + 1);
            if (noFeature) {
                features.remove(key);
            } else {
                features.put(key, value);
            }
            if (noLabel) {
                labels.remove(key);
            } else {
                labels.put(key, value);
            }
            noLabel = false;
            noFeature = false;
        }
        return new FeatureFile(Collections.unmodifiableMap(labels), Collections.unmodifiableMap(features));
    }
}
