package io.nodelabeller.publish;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * How many keys one write may add or change under the install's admission policy. The policy checks each key a
 * write adds, changes or newly lists against every pattern of the install's {@code node-labeller.io/denied-keys}, and
 * a key in a subdomain of a {@code node-labeller.io/label-domains} entry against every entry (a key in NFD's
 * namespaces, under nvidia.com or in an entry's own domain is one lookup). The API server stops an expression past a
 * fixed cost (1,000,000 units per expression; a regular expression match costs ceil((1 + key length) / 10) ×
 * ceil(pattern length / 4), cel-go's {@code interpreter/runtimecost.go}): a first labelling of thousands of such keys
 * would be refused whole, every cycle. The agent spreads them over several writes instead, each estimated under half
 * that limit, so that any node the annotations can describe is written under any scope the agent accepts
 * ({@code WriteScope.MAX_DENIED_KEYS_LENGTH}). Without patterns and subdomain keys one write takes everything (a key
 * costs little else, and the node's annotations bound the keys: docs/performance.md).
 *
 * @param patterns     the install's denied-keys patterns
 * @param labelDomains the install's label-domains entries
 */
public record WriteBudget(List<String> patterns, List<String> labelDomains) {

    /** Half the API server's cost limit per CEL expression ({@code PerCallLimit}). */
    public static final long PER_WRITE = 500_000;
    /** What a key costs the policy's other per-key steps and each pattern's iteration, beyond the matches. */
    private static final long PER_KEY = 20;
    private static final long PER_PATTERN = 5;
    private static final long PER_DOMAIN = 5;
    /** Keys checked by one lookup, whatever the scope. */
    private static final List<String> ONE_LOOKUP = List.of("feature.node.kubernetes.io/", "profile.node.kubernetes.io/",
            "nvidia.com/");

    public WriteBudget {
        patterns = List.copyOf(patterns);
        labelDomains = List.copyOf(labelDomains);
    }

    /** No pattern and no domain: nothing to spread. */
    public static final WriteBudget NONE = new WriteBudget(List.of(), List.of());

    /** The estimated cost of checking {@code key} against every pattern, and against every domain where it must be. */
    public long cost(String key) {
        long strCost = ceilDiv(1 + key.length(), 10);
        long cost = PER_KEY;
        for (String p : patterns) {
            cost += PER_PATTERN + strCost * ceilDiv(p.length(), 4);
        }
        int slash = key.indexOf('/');
        if (slash > 0 && ONE_LOOKUP.stream().noneMatch(key::startsWith) && !labelDomains.contains(key.substring(0, slash))) {
            cost += labelDomains.size() * (PER_DOMAIN + 2 * strCost);
        }
        return cost;
    }

    /** How many of {@code keys}, in order, fit in one write (at least one, so that every write makes progress). */
    public int fitting(Collection<String> keys) {
        long total = 0;
        int n = 0;
        for (String k : keys) {
            total += cost(k);
            if (total > PER_WRITE && n > 0) {
                return n;
            }
            n++;
        }
        return n;
    }

    /**
     * {@code desired} cut to one write: the keys it adds or changes relative to {@code current} (those not in
     * {@code owned}, or with another value) as far as they fit, in key order; the rest left for the next write — a
     * new key left out, a changed one kept at its current value. {@code desired} itself when everything fits.
     */
    public SortedMap<String, String> step(SortedMap<String, String> desired, Map<String, String> current,
                                          Predicate<String> owned) {
        if (patterns.isEmpty() && labelDomains.isEmpty()) {
            return desired;
        }
        List<String> writes = desired.entrySet().stream()
                .filter(e -> !owned.test(e.getKey()) || !e.getValue().equals(current.get(e.getKey())))
                .map(Map.Entry::getKey).toList();
        int fit = fitting(writes);
        if (fit == writes.size()) {
            return desired;
        }
        SortedMap<String, String> out = new TreeMap<>(desired);
        for (String k : writes.subList(fit, writes.size())) {
            if (owned.test(k) && current.containsKey(k)) {
                out.put(k, current.get(k));
            } else {
                out.remove(k);
            }
        }
        return out;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
