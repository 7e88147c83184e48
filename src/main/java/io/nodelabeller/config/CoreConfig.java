package io.nodelabeller.config;

import io.nodelabeller.config.yaml.Checks;
import io.nodelabeller.config.yaml.YamlNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code core:} — NFD worker's core settings, plus node-labeller's label namespace controls. Every key of
 * NFD's {@code core} is accepted; what each means for node-labeller is in docs/configuration.md ("NFD worker keys, one by one").
 *
 * @param sleepInterval     time between cycles of {@code run}
 * @param featureSources    which sources run ("all", names, "-name" removes one)
 * @param labelSources      which labelers run (same syntax); NFD's deprecated {@code sources} wins when given
 * @param labelWhiteList    Go (RE2) regexp matched (unanchored) against the label name after "/"; null = all
 * @param extraLabelNs      namespaces allowed although denied by default
 * @param denyLabelNs       namespaces denied in addition to the default ("*.example.com" for a suffix)
 * @param noPublish         discover and label, but write nothing to Kubernetes (NFD's {@code noPublish})
 * @param ownerRefs         owner references of the NodeFeature object, a subset of node, pod, ds
 *                          ({@code noOwnerRefs: true} makes it empty)
 * @param noPublishFeatures features left out of the NodeFeature object: "source.feature" or a prefix ending in "*"
 * @param customRulesDir    directory of custom rule files (NFD's custom.d), on the agent's own file system; "" = none
 * @param sourceTimeout     how long one source may take in a discovery before it is given up (node-labeller's own
 *                          key: a host file that blocks must not stop the cycle)
 */
public record CoreConfig(Duration sleepInterval, List<String> featureSources, List<String> labelSources,
                         com.google.re2j.Pattern labelWhiteList, List<String> extraLabelNs, List<String> denyLabelNs,
                         boolean noPublish, List<String> ownerRefs, List<String> noPublishFeatures,
                         String customRulesDir, Duration sourceTimeout) {

    public static final List<String> OWNER_REFS = List.of("node", "pod", "ds");

    /** These settings with other source and labeler selections. */
    CoreConfig withSelections(List<String> features, List<String> labels) {
        return new CoreConfig(sleepInterval, features, labels, labelWhiteList, extraLabelNs, denyLabelNs, noPublish,
                ownerRefs, noPublishFeatures, customRulesDir, sourceTimeout);
    }
    public static final String DEFAULT_CUSTOM_RULES_DIR = "/etc/kubernetes/node-feature-discovery/custom.d";

    public static final CoreConfig DEFAULT = new CoreConfig(Duration.ofSeconds(60), List.of("all"), List.of("all"),
            null, List.of(), List.of(), false, List.of("pod", "ds"), List.of(), DEFAULT_CUSTOM_RULES_DIR, Duration.ofSeconds(5));

    /** A DNS subdomain, optionally "*." or "*" in front for a suffix match (NFD's -deny-label-ns syntax). */
    private static final Pattern NAMESPACE =
            Pattern.compile("(\\*\\.?)?" + Checks.DNS1123_SUBDOMAIN);
    private static final String NAMESPACE_EXPECTED = "a label namespace such as example.com, or *.example.com for its subdomains";

    private static final Pattern FEATURE_PATTERN = Pattern.compile("\\*|[a-z0-9][-a-z0-9_]*(\\.\\*|\\.[^\\s*]+\\*?)?");

    static CoreConfig read(YamlNode n) {
        n.object("sleepInterval", "featureSources", "labelSources", "sources", "labelWhiteList", "extraLabelNs",
                "denyLabelNs", "noPublish", "ownerRefs", "noOwnerRefs", "noPublishFeatures", "klog", "customRulesDir",
                "sourceTimeout");
        Duration sleep = n.child("sleepInterval").duration(DEFAULT.sleepInterval());
        if (sleep.isNegative() || (!sleep.isZero() && sleep.compareTo(Duration.ofSeconds(1)) < 0)) {
            n.child("sleepInterval").problem("expected 0 (discover once) or at least 1s, got " + sleep);
            sleep = DEFAULT.sleepInterval();
        }
        // "" means every label (NFD's default), so it is not handed to the parser, which treats null as invalid
        YamlNode wl = n.child("labelWhiteList");
        com.google.re2j.Pattern whitelist = wl.json().isTextual() && wl.json().asText().isEmpty() ? null
                : wl.parsed(null, "a regular expression (Go RE2 syntax)", com.google.re2j.Pattern::compile);
        List<String> labelSources = n.child("labelSources").strings(DEFAULT.labelSources());
        // NFD: the deprecated core.sources, when present, replaces labelSources
        labelSources = n.child("sources").strings(labelSources);
        List<String> ownerRefs = ownerRefs(n.child("ownerRefs"));
        if (n.child("noOwnerRefs").bool(false)) {
            ownerRefs = List.of();
        }
        KlogConfig.check(n.child("klog"));
        return new CoreConfig(sleep,
                n.child("featureSources").strings(DEFAULT.featureSources()),
                labelSources,
                whitelist,
                Checks.matching(n.child("extraLabelNs"), List.of(), NAMESPACE, NAMESPACE_EXPECTED),
                Checks.matching(n.child("denyLabelNs"), List.of(), NAMESPACE, NAMESPACE_EXPECTED),
                n.child("noPublish").bool(DEFAULT.noPublish()),
                ownerRefs,
                noPublishFeatures(n.child("noPublishFeatures")),
                n.child("customRulesDir").string(DEFAULT.customRulesDir()),
                n.child("sourceTimeout").duration(DEFAULT.sourceTimeout(), Duration.ofMillis(100), Duration.ofMinutes(10),
                        "100ms to 10m"));
    }


    private static List<String> ownerRefs(YamlNode n) {
        List<String> refs = n.strings(DEFAULT.ownerRefs());
        Set<String> seen = new HashSet<>();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
            String r = refs.get(i);
            if (!OWNER_REFS.contains(r)) {
                n.element(i).problem("expected one of " + String.join(", ", OWNER_REFS) + ", got '" + r + "'");
            } else if (!seen.add(r)) {
                n.element(i).problem("'" + r + "' is listed twice");
            } else {
                out.add(r);
            }
        }
        return List.copyOf(out);
    }

    private static List<String> noPublishFeatures(YamlNode n) {
        List<String> items = n.strings(List.of());
        for (int i = 0; i < items.size(); i++) {
            if (!FEATURE_PATTERN.matcher(items.get(i)).matches()) {
                n.element(i).problem("expected <source>.<feature>, or a prefix ending in * (such as usb.*), got '"
                        + items.get(i) + "'");
            }
        }
        return items;
    }
}
