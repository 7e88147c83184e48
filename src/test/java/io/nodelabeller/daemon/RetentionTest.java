package io.nodelabeller.daemon;

import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RetentionTest {

    private static final List<String> SOURCES = List.of("pci", "kernel", "cpu", "nvidia");

    /** A label of a built-in labeler: it depends on its own source. */
    private static Label label(String source, String key, String value) {
        return Label.of(key, value, source, "test");
    }

    /** An output of a custom rule that reads the features of {@code inputs}. */
    private static Label rule(String key, String value, String... inputs) {
        return new Label(key, value, "custom", "test", Set.of(inputs));
    }

    private static LabelSet set(Label... labels) {
        SortedMap<String, Label> m = new TreeMap<>();
        for (Label l : labels) {
            m.put(l.key(), l);
        }
        return new LabelSet(m, List.of());
    }

    private static List<SourceStatus> statuses(String... failed) {
        List<String> f = List.of(failed);
        List<SourceStatus> out = new ArrayList<>();
        for (String s : SOURCES) {
            out.add(new SourceStatus(s, List.of(), f.contains(s) ? "boom" : null));
        }
        return out;
    }

    private static final Label PCI = label("pci", "feature.node.kubernetes.io/pci-0300_10de.present", "true");
    private static final Label KERNEL = label("kernel", "feature.node.kubernetes.io/kernel-version.major", "6");
    private static final Label RULE = rule("feature.node.kubernetes.io/my-rule", "true", "cpu", "kernel");

    @Test
    void failedSourceKeepsItsLabelsForStaleAfterCyclesThenLosesThem() {
        Retention r = Retention.initial(3);
        Retention.Step s = r.next(statuses(), set(PCI, KERNEL));
        assertEquals(set(PCI, KERNEL).asMap(), s.labels().asMap());
        for (int cycle = 1; cycle <= 3; cycle++) {
            s = s.next().next(statuses("pci"), set(KERNEL));
            assertEquals(set(PCI, KERNEL).asMap(), s.labels().asMap(), "failed cycle " + cycle);
            assertEquals(List.of(PCI.key()), List.copyOf(s.kept().keySet()));
        }
        s = s.next().next(statuses("pci"), set(KERNEL));
        assertEquals(set(KERNEL).asMap(), s.labels().asMap(), "4th failed cycle: stale");
        s = s.next().next(statuses("pci"), set(KERNEL));
        assertEquals(set(KERNEL).asMap(), s.labels().asMap(), "gone labels do not come back while it fails");
    }

    /**
     * A held source (the GPU agent's nvidia source: NVML fails while a driver is installed) keeps its labels however
     * long it fails, labels found at start included; another source's still go after staleAfter; once the held
     * source answers again its labels are what it says.
     */
    @Test
    void aHeldSourceKeepsItsLabelsHoweverLongItFails() {
        Label product = label("nvidia", "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB");
        Retention r = Retention.initial(3, Set.of("nvidia"));
        Retention.Step s = r.next(statuses(), set(PCI, product));
        for (int cycle = 1; cycle <= 100; cycle++) {
            s = s.next().next(statuses("nvidia", "pci"), set());
            assertEquals(cycle <= 3 ? set(PCI, product).asMap() : set(product).asMap(), s.labels().asMap(), "cycle " + cycle);
        }
        s = s.next().next(statuses(), set(label("nvidia", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")));
        assertEquals("NVIDIA-H100-80GB-HBM3", s.labels().asMap().get("nvidia.com/gpu.product"));

        Retention restarted = Retention.initial(3, Set.of("nvidia"))
                .withPrevious(LabelSet.Kind.LABEL, java.util.Map.of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"));
        Retention.Step t = restarted.next(statuses("nvidia"), set());
        for (int cycle = 1; cycle <= 10; cycle++) {
            t = t.next().next(statuses("nvidia"), set());
        }
        assertEquals("NVIDIA-A100-SXM4-80GB", t.labels().asMap().get("nvidia.com/gpu.product"), "found at start, held");
    }

    /** Cycles fired between scheduled ones (a reloaded config, a changed file) keep what they keep without counting. */
    @Test
    void cyclesThatDoNotCountKeepWithoutUsingUpStaleAfter() {
        Retention.Step s = Retention.initial(2).next(statuses(), set(PCI, KERNEL));
        for (int fired = 0; fired < 10; fired++) {
            s = s.next().next(statuses("pci"), set(KERNEL), false);
            assertEquals(set(PCI, KERNEL).asMap(), s.labels().asMap(), "fired cycle " + fired);
        }
        s = s.next().next(statuses("pci"), set(KERNEL), true);
        s = s.next().next(statuses("pci"), set(KERNEL), true);
        assertEquals(set(PCI, KERNEL).asMap(), s.labels().asMap(), "two scheduled cycles: still within staleAfter 2");
        s = s.next().next(statuses("pci"), set(KERNEL), true);
        assertEquals(set(KERNEL).asMap(), s.labels().asMap(), "the third scheduled one: stale");
        assertEquals(set(KERNEL).asMap(), Retention.initial(2).next(statuses(), set(PCI, KERNEL)).next()
                .next(statuses(), set(KERNEL), false).labels().asMap(), "nothing failed: it follows at once all the same");
    }

    @Test
    void recoveredSourceIsTakenAsItIsNow() {
        Label pciOther = label("pci", "feature.node.kubernetes.io/pci-0302_10de.present", "true");
        Retention.Step s = Retention.initial(3).next(statuses(), set(PCI, KERNEL));
        s = s.next().next(statuses("pci"), set(KERNEL));
        assertEquals(set(PCI, KERNEL).asMap(), s.labels().asMap());
        s = s.next().next(statuses(), set(KERNEL, pciOther));
        assertEquals(set(KERNEL, pciOther).asMap(), s.labels().asMap(), "PCI label no longer produced: removed at once");
        assertEquals(Map.of(), s.kept());
        // after recovering, a new failure starts a new grace period
        for (int cycle = 1; cycle <= 3; cycle++) {
            s = s.next().next(statuses("pci"), set(KERNEL));
            assertEquals(set(KERNEL, pciOther).asMap(), s.labels().asMap());
        }
    }

    @Test
    void aSuccessfulSourceLosesLabelsAtOnceWhateverOthersDo() {
        Retention.Step s = Retention.initial(3).next(statuses(), set(PCI, KERNEL));
        s = s.next().next(statuses("pci"), set());
        assertEquals(set(PCI).asMap(), s.labels().asMap(), "kernel ran fine and produced nothing: its label goes");
    }

    @Test
    void freshValueReplacesAKeptOne() {
        Label kernel7 = label("kernel", KERNEL.key(), "7");
        Retention.Step s = Retention.initial(3).next(statuses(), set(KERNEL));
        s = s.next().next(statuses("kernel"), set());
        s = s.next().next(statuses(), set(kernel7));
        assertEquals(Map.of(KERNEL.key(), "7"), s.labels().asMap());
    }

    @Test
    void aRuleOutputIsKeptWhileASourceItsRuleReadsFailsAndOnlyThen() {
        Retention.Step s = Retention.initial(2).next(statuses(), set(RULE, KERNEL));
        s = s.next().next(statuses("cpu"), set(KERNEL));
        assertEquals(set(RULE, KERNEL).asMap(), s.labels().asMap(), "the rule may have missed cpu features");
        assertEquals(Set.of("cpu"), s.keptFor());
        s = s.next().next(statuses("cpu", "nvidia"), set(KERNEL));
        assertEquals(set(RULE, KERNEL).asMap(), s.labels().asMap());
        assertEquals(Set.of("cpu"), s.keptFor(), "nvidia failing too is not what the rule waits for");
        s = s.next().next(statuses("cpu"), set(KERNEL));
        assertEquals(set(KERNEL).asMap(), s.labels().asMap(), "third uncertain cycle with staleAfter 2");

        s = Retention.initial(2).next(statuses(), set(RULE)).next().next(statuses("nvidia", "pci"), set());
        assertEquals(Map.of(), s.labels().asMap(), "the rule reads neither nvidia nor pci: it no longer matches");
        assertEquals(Set.of(), s.keptFor());
    }

    /**
     * The reproduction of a config change on a GPU node whose driver is not loaded: a rule on the OS release changes
     * its value while nvidia fails, and the node gets the new value in the same cycle; a rule on nvidia features
     * keeps its last one.
     */
    @Test
    void aRuleOutputWhoseInputsSucceededFollowsAtOnceWhileAnotherSourceFails() {
        Label v1 = rule("feature.node.kubernetes.io/reload-a", "v1", "system");
        Label v2 = rule("feature.node.kubernetes.io/reload-a", "v2", "system");
        Label gpu = rule("feature.node.kubernetes.io/gpu-rule", "a100", "nvidia");
        Label gpuOther = rule("feature.node.kubernetes.io/gpu-rule", "unknown", "nvidia");
        Retention.Step s = Retention.initial(3).next(statuses(), set(v1, gpu));
        s = s.next().next(statuses("nvidia"), set(v2, gpuOther));
        assertEquals(Map.of(v2.key(), "v2", gpu.key(), "a100"), s.labels().asMap());
        assertEquals(List.of(gpu.key()), List.copyOf(s.kept().keySet()));
        s = s.next().next(statuses("nvidia"), set());
        assertEquals(Map.of(gpu.key(), "a100"), s.labels().asMap(), "the rule on system was removed from the config: gone");

        Label always = rule("feature.node.kubernetes.io/always", "yes");
        s = Retention.initial(3).next(statuses(), set(always)).next().next(statuses("pci", "kernel", "cpu", "nvidia"), set());
        assertEquals(Map.of(), s.labels().asMap(), "a rule that reads no feature waits for no source");
    }

    /**
     * A label found on the node at start-up has no known origin: it waits for every source while no cycle produced it,
     * and for the inputs of the output that produces it from the first cycle that does.
     */
    @Test
    void aLabelFoundAtStartTakesTheInputsOfWhatProducesItNow() {
        Label v2 = rule("feature.node.kubernetes.io/reload-a", "v2", "system");
        Retention r = Retention.initial(3).withPrevious(LabelSet.Kind.LABEL, Map.of(v2.key(), "v1", "x/unknown", "1"));
        Retention.Step s = r.next(statuses("nvidia"), set(v2));
        assertEquals(Map.of(v2.key(), "v2", "x/unknown", "1"), s.labels().asMap(),
                "produced from system, which works: the new value; not produced: kept while a source fails");
        assertEquals(Set.of("nvidia"), s.keptFor());
        Label gpu = rule("feature.node.kubernetes.io/gpu-rule", "unknown", "nvidia");
        s = Retention.initial(3).withPrevious(LabelSet.Kind.LABEL, Map.of(gpu.key(), "a100")).next(statuses("nvidia"), set(gpu));
        assertEquals(Map.of(gpu.key(), "a100"), s.labels().asMap(), "produced from nvidia, which failed: the last value");
    }

    @Test
    void staleAfterZeroRemovesAtOnceAndASwitchedOffSourceLosesItsLabels() {
        Retention.Step s = Retention.initial(0).next(statuses(), set(PCI));
        assertEquals(Map.of(), s.next().next(statuses("pci"), set()).labels().asMap());

        List<SourceStatus> withoutPci = statuses().stream().filter(st -> !st.source().equals("pci")).toList();
        s = Retention.initial(3).next(statuses(), set(PCI));
        assertEquals(Map.of(), s.next().next(withoutPci, set()).labels().asMap());
        assertThrows(IllegalArgumentException.class, () -> Retention.initial(-1));
    }

    @Test
    void labelsFoundAtStartAreKeptWhileAnySourceFails() {
        Map<String, String> onNode = Map.of(PCI.key(), "true", "x/gone", "1");
        Retention r = Retention.initial(1).withPrevious(LabelSet.Kind.LABEL, onNode);
        Retention.Step s = r.next(statuses("pci"), set(KERNEL));
        assertEquals(Map.of(PCI.key(), "true", "x/gone", "1", KERNEL.key(), "6"), s.labels().asMap(),
                "a restart with a failing source removes nothing");
        assertEquals(Map.of(KERNEL.key(), "6"), s.next().next(statuses("pci"), set(KERNEL)).labels().asMap(),
                "staleAfter applies to them too");
        assertEquals(Map.of(KERNEL.key(), "6"), r.next(statuses(), set(KERNEL)).labels().asMap(),
                "every source succeeded: what is not produced goes");
    }

    @Test
    void droppedLabelsPassThrough() {
        Label bad = label("kernel", "feature.node.kubernetes.io/bad", "a b");
        LabelSet fresh = new LabelSet(new TreeMap<>(Map.of(KERNEL.key(), KERNEL)), List.of(new LabelSet.Dropped(bad, "invalid")));
        assertEquals(fresh.dropped(), Retention.initial(3).next(statuses(), fresh).labels().dropped());
    }

    /** gpu.mode is computed from NVML and from the PCI scan: a failed PCI scan keeps its value instead of "unknown". */
    @Test
    void aLabelWithSeveralInputsKeepsItsValueWhileOneOfThemFails() {
        Label compute = new Label("nvidia.com/gpu.mode", "compute", "nvidia", "test", Set.of("nvidia", "pci"));
        Label unknown = new Label("nvidia.com/gpu.mode", "unknown", "nvidia", "test", Set.of("nvidia", "pci"));
        Retention.Step s = Retention.initial(2).next(statuses(), set(compute));
        for (int cycle = 1; cycle <= 2; cycle++) {
            s = s.next().next(statuses("pci"), set(unknown));
            assertEquals(Map.of(compute.key(), "compute"), s.labels().asMap(), "PCI failed, cycle " + cycle);
            assertEquals(List.of(compute.key()), List.copyOf(s.kept().keySet()));
        }
        s = s.next().next(statuses("pci"), set(unknown));
        assertEquals(Map.of(compute.key(), "unknown"), s.labels().asMap(), "beyond staleAfter the new value wins");
        s = Retention.initial(2).next(statuses(), set(compute)).next().next(statuses("kernel"), set(unknown));
        assertEquals(Map.of(compute.key(), "unknown"), s.labels().asMap(), "no input failed: the new value is certain");
    }

    /**
     * Random histories checked against the rule, written out as a model of one key at a time: a label produced with
     * the value last published is published; otherwise (left out or changed) the last published value stays while
     * an input of the old or new label failed (of the new one alone when the old one was found on the node at a
     * restart, with no known origin) and it has been kept fewer than staleAfter cycles; otherwise the produced label
     * (if any) is published. Rules read random sets of sources, none included.
     */
    @Test
    void randomHistoriesFollowTheRule() {
        Random random = new Random(20261122L);
        List<String> labelers = List.of("pci", "kernel", "cpu", "nvidia", "custom");
        List<String> inputsOfRules = new ArrayList<>(SOURCES);
        for (int run = 0; run < 300; run++) {
            int staleAfter = random.nextInt(5);
            int cycles = 1 + random.nextInt(25);
            Retention r = Retention.initial(staleAfter);
            Map<String, String> published = new TreeMap<>();
            Map<String, Integer> misses = new HashMap<>();
            Map<String, Label> last = new HashMap<>();
            if (random.nextBoolean()) { // a restart: labels of unknown origin on the node
                for (String labeler : labelers) {
                    if (random.nextBoolean()) {
                        published.put("x/" + labeler + random.nextInt(3), "v" + random.nextInt(2));
                    }
                }
                r = r.withPrevious(LabelSet.Kind.LABEL, published);
                published.forEach((k, v) -> last.put(k, new Label(k, v, null, "found", Label.ANY_SOURCE)));
            }
            // each custom key is one rule, reading a fixed random set of sources (possibly none)
            Map<String, Set<String>> ruleInputs = new HashMap<>();
            for (int k = 0; k < 3; k++) {
                Collections.shuffle(inputsOfRules, random);
                ruleInputs.put("x/custom" + k, Set.copyOf(inputsOfRules.subList(0, random.nextInt(3))));
            }
            for (int t = 0; t < cycles; t++) {
                List<String> failed = new ArrayList<>();
                for (String s : SOURCES) {
                    if (random.nextInt(3) == 0) {
                        failed.add(s);
                    }
                }
                Map<String, Label> now = new HashMap<>();
                for (String labeler : labelers) {
                    if (failed.contains(labeler)) {
                        continue; // a failed source's labeler has no features to label
                    }
                    for (int k = 0; k < 3; k++) {
                        String key = "x/" + labeler + k;
                        if (random.nextBoolean()) {
                            String value = "v" + random.nextInt(2);
                            Label l = labeler.equals("custom")
                                    ? rule(key, value, ruleInputs.get(key).toArray(String[]::new))
                                    : label(labeler, key, value);
                            now.put(l.key(), l);
                        }
                    }
                }
                Map<String, String> expected = new TreeMap<>();
                Set<String> keys = new java.util.TreeSet<>(published.keySet());
                keys.addAll(now.keySet());
                for (String key : keys) {
                    Label fresh = now.get(key);
                    String old = published.get(key);
                    Label before = last.get(key);
                    boolean uncertain = old != null && (fresh == null ? uncertain(before, failed)
                            : before.originUnknown() ? uncertain(fresh, failed)
                            : uncertain(before, failed) || uncertain(fresh, failed));
                    if (old != null && (fresh == null || !fresh.value().equals(old)) && uncertain
                            && misses.getOrDefault(key, 0) < staleAfter) {
                        expected.put(key, old);
                        misses.merge(key, 1, Integer::sum);
                    } else if (fresh != null) {
                        expected.put(key, fresh.value());
                        misses.put(key, 0);
                        last.put(key, fresh);
                    } else {
                        misses.remove(key);
                        last.remove(key);
                    }
                }
                published = expected;
                Retention.Step step = r.next(statuses(failed.toArray(String[]::new)), set(now.values().toArray(Label[]::new)));
                r = step.next();
                assertEquals(expected, step.labels().asMap(), "run " + run + " cycle " + t + " staleAfter " + staleAfter);
            }
        }
    }

    /** The rule, written out: a label of unknown origin waits for any source, the others for their inputs. */
    private static boolean uncertain(Label l, List<String> failed) {
        return l.inputs().equals(Label.ANY_SOURCE) ? !failed.isEmpty() : l.inputs().stream().anyMatch(failed::contains);
    }

    /**
     * Rule outputs of every kind owned on the node at a restart are kept while the NodeFeatureRule objects are not
     * known yet (an uncertain input), then follow the objects once they are.
     */
    @Test
    void ruleOutputsOwnedAtStartAreKeptUntilTheObjectsAreKnown() {
        Retention r = Retention.initial(3)
                .withPrevious(LabelSet.Kind.ANNOTATION, Map.of("vendor.io/owner", "team-a"))
                .withPrevious(LabelSet.Kind.TAINT, Map.of("vendor.io/dedicated:NoSchedule", "gpu"))
                .withPrevious(LabelSet.Kind.EXTENDED_RESOURCE, Map.of("vendor.io/widgets", "4"));
        // labelling produced every kind (switched on), none of them yet
        Map<LabelSet.Kind, SortedMap<String, Label>> none = Map.of(LabelSet.Kind.ANNOTATION, new TreeMap<>(),
                LabelSet.Kind.TAINT, new TreeMap<>(), LabelSet.Kind.EXTENDED_RESOURCE, new TreeMap<>());
        LabelSet unknown = new LabelSet(new TreeMap<>(), List.of(), none, java.util.Set.of("nodefeaturerules"));
        Retention.Step s = r.next(statuses(), unknown);
        for (int cycle = 0; cycle < 10; cycle++) { // longer than staleAfter: unknown is not gone
            s = s.next().next(statuses(), unknown);
        }
        assertEquals(Map.of("vendor.io/owner", "team-a"), s.labels().asMap(LabelSet.Kind.ANNOTATION));
        assertEquals(Map.of("vendor.io/dedicated:NoSchedule", "gpu"), s.labels().asMap(LabelSet.Kind.TAINT));
        assertEquals(Map.of("vendor.io/widgets", "4"), s.labels().asMap(LabelSet.Kind.EXTENDED_RESOURCE));

        SortedMap<String, Label> annotations = new TreeMap<>(Map.of("vendor.io/owner",
                new Label("vendor.io/owner", "team-b", "nodefeaturerule", "test", Set.of("nodefeaturerules", "system"))));
        Map<LabelSet.Kind, SortedMap<String, Label>> some = new java.util.EnumMap<>(none);
        some.put(LabelSet.Kind.ANNOTATION, annotations);
        LabelSet known = new LabelSet(new TreeMap<>(), List.of(), some, java.util.Set.of());
        s = s.next().next(statuses(), known);
        assertEquals(Map.of("vendor.io/owner", "team-b"), s.labels().asMap(LabelSet.Kind.ANNOTATION));
        assertEquals(Map.of(), s.labels().asMap(LabelSet.Kind.TAINT), "known and no longer produced: removed");
        assertEquals(Map.of(), s.labels().asMap(LabelSet.Kind.EXTENDED_RESOURCE));
    }

    /** A kind switched off (not produced) is left as it is: retention neither keeps nor drops it. */
    @Test
    void aKindSwitchedOffIsLeftAlone() {
        Retention r = Retention.initial(3).withPrevious(LabelSet.Kind.TAINT, Map.of("vendor.io/dedicated:NoSchedule", "gpu"));
        Retention.Step s = r.next(statuses(), set(KERNEL));
        assertTrue(!s.labels().produces(LabelSet.Kind.TAINT));
        Map<LabelSet.Kind, SortedMap<String, Label>> on = Map.of(LabelSet.Kind.TAINT, new TreeMap<>());
        s = s.next().next(statuses("pci"), new LabelSet(new TreeMap<>(), List.of(), on, java.util.Set.of()));
        assertEquals(Map.of("vendor.io/dedicated:NoSchedule", "gpu"), s.labels().asMap(LabelSet.Kind.TAINT),
                "switched on again while a source fails: still the owned one, kept as at start");
    }
}
