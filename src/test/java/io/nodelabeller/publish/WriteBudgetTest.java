package io.nodelabeller.publish;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the agent spreads the keys it adds over writes that the admission policy can check within the API server's
 * cost limit. Whether the writes are admitted is decided by the server ({@code deploy.PolicyCostTest}); this holds the
 * spreading itself: what waits, what stays, and that every write makes progress.
 */
class WriteBudgetTest {

    /** 64 patterns of 64 characters: the longest denied-keys a scope takes. */
    static final WriteBudget LONGEST = new WriteBudget(Collections.nCopies(64, "^example\\.com/" + "x".repeat(49) + "$"),
            List.of());

    static SortedMap<String, String> keys(int n, String value) {
        SortedMap<String, String> out = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            out.put(String.format("feature.node.kubernetes.io/pci-%04d_10de.present", i), value);
        }
        return out;
    }

    @Test
    void withoutPatternsOneWriteTakesEverything() {
        SortedMap<String, String> all = keys(4500, "true");
        assertSame(all, WriteBudget.NONE.step(all, Map.of(), k -> false));
        assertEquals(4500, WriteBudget.NONE.fitting(all.keySet()));
    }

    /** The cost of a key as the API server counts a match: ceil((1 + 48) / 10) × ceil(64 / 4), per pattern. */
    @Test
    void aKeysCostIsItsMatchesAgainstEveryPattern() {
        assertEquals(20 + 64 * (5 + 5 * 16), LONGEST.cost("feature.node.kubernetes.io/pci-0000_10de.present"));
        assertEquals(20 + 64 * (5 + 6 * 16), LONGEST.cost("feature.node.kubernetes.io/pci-0000_10de.present" + "xx"));
    }

    /**
     * A first labelling under the longest patterns: a write takes as many new keys as fit, in key order; the next
     * write, on the node the first left, takes the next ones; every key is written in the end.
     */
    @Test
    void newKeysWaitForTheNextWrite() {
        SortedMap<String, String> desired = keys(4500, "true");
        int fit = LONGEST.fitting(desired.keySet());
        assertEquals(WriteBudget.PER_WRITE / LONGEST.cost(desired.firstKey()), fit);
        Map<String, String> node = new TreeMap<>();
        int writes = 0;
        while (!node.equals(desired)) {
            SortedMap<String, String> step = LONGEST.step(desired, node, node::containsKey);
            assertTrue(step.size() - node.size() <= fit, "one write's new keys");
            assertTrue(step.size() > node.size(), "every write makes progress");
            node = step;
            writes++;
        }
        assertEquals((4500 + fit - 1) / fit, writes);
    }

    /**
     * A key in a subdomain of a label-domains entry is checked against every entry; one in an entry's own domain, in
     * NFD's namespaces or under nvidia.com is one lookup.
     */
    @Test
    void onlyAKeyInASubdomainCostsEveryDomain() {
        List<String> domains = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            domains.add(String.format("team-%03d.example.com", i));
        }
        WriteBudget budget = new WriteBudget(List.of(), domains);
        assertEquals(20, budget.cost("team-099.example.com/rack"));
        assertEquals(20, budget.cost("feature.node.kubernetes.io/pci-0000_10de.present"));
        assertEquals(20, budget.cost("nvidia.com/gpu.product"));
        assertEquals(20 + 100 * (5 + 2 * 3), budget.cost("sub.team-099.example.com/rack")); // 29 characters
    }

    /** A changed key that does not fit keeps its value until its write; owned keys are never left out (removed). */
    @Test
    void changedKeysKeepTheirValueUntilTheirWrite() {
        SortedMap<String, String> node = keys(2000, "true");
        SortedMap<String, String> desired = keys(2000, "false");
        SortedMap<String, String> step = LONGEST.step(desired, node, node::containsKey);
        assertEquals(node.keySet(), step.keySet());
        long changed = step.entrySet().stream().filter(e -> e.getValue().equals("false")).count();
        assertEquals(LONGEST.fitting(desired.keySet()), changed);
        assertEquals(desired.headMap(step.entrySet().stream().filter(e -> e.getValue().equals("true")).findFirst()
                .orElseThrow().getKey()).keySet(), Set.copyOf(step.entrySet().stream()
                .filter(e -> e.getValue().equals("false")).map(Map.Entry::getKey).toList()));
    }

    /** A key far costlier than a write still goes, alone: no write is empty. */
    @Test
    void aKeyCostlierThanAWriteGoesAlone() {
        WriteBudget huge = new WriteBudget(List.of("x".repeat(400_000)), List.of());
        SortedMap<String, String> desired = keys(3, "true");
        assertEquals(1, huge.fitting(desired.keySet()));
        assertEquals(Set.of(desired.firstKey()), huge.step(desired, Map.of(), k -> false).keySet());
    }
}
