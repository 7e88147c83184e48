package io.nodelabeller.config;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code core:} — NFD worker's core settings, plus the label namespace controls of SPEC §4.1.
 *
 * @param sleepInterval  time between cycles of {@code run}
 * @param featureSources which sources run ("all", names, "-name" removes one)
 * @param labelSources   which labelers run (same syntax)
 * @param labelWhiteList regexp matched (unanchored) against the label name after "/"; null = all
 * @param extraLabelNs   namespaces allowed although denied by default
 * @param denyLabelNs    namespaces denied in addition to the default ("*.example.com" for a suffix)
 */
public record CoreConfig(Duration sleepInterval, List<String> featureSources, List<String> labelSources,
                         Pattern labelWhiteList, List<String> extraLabelNs, List<String> denyLabelNs) {

    public static final CoreConfig DEFAULT = new CoreConfig(Duration.ofSeconds(60), List.of("all"), List.of("all"),
            null, List.of(), List.of());

    static CoreConfig read(Node n) {
        n.object("sleepInterval", "featureSources", "labelSources", "labelWhiteList", "extraLabelNs", "denyLabelNs");
        Duration sleep = n.child("sleepInterval").duration(DEFAULT.sleepInterval());
        if (sleep.isNegative() || (!sleep.isZero() && sleep.compareTo(Duration.ofSeconds(1)) < 0)) {
            n.child("sleepInterval").problem("expected 0 (discover once) or at least 1s, got " + sleep);
            sleep = DEFAULT.sleepInterval();
        }
        String whitelistText = n.child("labelWhiteList").string("");
        Pattern whitelist = whitelistText.isEmpty() ? null
                : n.child("labelWhiteList").parsed(null, "a regular expression", Pattern::compile);
        return new CoreConfig(sleep,
                n.child("featureSources").strings(DEFAULT.featureSources()),
                n.child("labelSources").strings(DEFAULT.labelSources()),
                whitelist,
                n.child("extraLabelNs").strings(List.of()),
                n.child("denyLabelNs").strings(List.of()));
    }
}
