package io.nodelabeller.label.rules;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.LabelSet.Kind;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.label.Labelling;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of NodeFeatureRule objects as nfd-master runs them (pkg/nfd-master/nfd-master.go processNodeFeatureRule,
 * filterFeatureLabels, filterExtendedResources): objects by name, one rule.matched across them, references resolved
 * after the last rule; and the labelling stage's checks of every output kind (pkg/apis/nfd/validate/validate.go).
 */
class NodeFeatureRuleLabelerTest {

    private static final Features FEATURES = Features.builder("kernel")
            .attributes("version", Map.of("major", "6", "full", "6.8.0-45-generic")).build();

    private static RuleObjects objects(boolean known, RuleObjects.RuleObject... objects) {
        return () -> new RuleObjects.View(List.of(objects), known);
    }

    private static RuleObjects.RuleObject object(String name, String rulesYaml) throws Exception {
        return new RuleObjects.RuleObject(name, RuleEngineTest.rules(rulesYaml));
    }

    @Test
    void objectsRunInNameOrderWithOneRuleMatchedAndLateReferences() throws Exception {
        // "b" is listed first but runs second; its var reaches "a"'s later rule only by name order; "a"'s label
        // refers to a var that only "b" sets, which nfd-master resolves after the last rule
        RuleObjects.RuleObject b = object("b", """
                - name: b sets
                  vars: {from-b: "seen"}
                """);
        RuleObjects.RuleObject a = object("a", """
                - name: a refers forward
                  labels: {vendor.io/forward: "@rule.matched.from-b", vendor.io/major: "@kernel.version.major"}
                  extendedResources: {vendor.io/cores: "@kernel.version.major"}
                - name: a sees b only if it ran before
                  labels: {vendor.io/b-before-a: "true"}
                  matchFeatures:
                    - feature: rule.matched
                      matchExpressions: {from-b: {op: Exists}}
                """);
        Labeler.Produced p = new NodeFeatureRuleLabeler(objects(true, b, a)).produce(FEATURES);
        Map<String, String> labels = Map.copyOf(p.labels().stream().collect(java.util.stream.Collectors.toMap(Label::key, Label::value)));
        assertEquals(Map.of("vendor.io/forward", "seen", "vendor.io/major", "6"), labels);
        assertEquals("6", p.others().get(Kind.EXTENDED_RESOURCE).get(0).value());
        assertTrue(p.labels().get(0).evidence().startsWith("NodeFeatureRule a, rule 'a refers forward'"), p.labels().get(0).evidence());
        assertEquals(Set.of(), p.uncertain());
        // every output waits for the objects themselves and for the sources its rule reads
        assertEquals(Set.of(RuleObjects.INPUT, "kernel"), p.labels().get(0).inputs());
        assertEquals(Set.of(RuleObjects.INPUT, "kernel"), p.others().get(Kind.EXTENDED_RESOURCE).get(0).inputs());
    }

    /** A NodeFeatureRule object's rules as the informer hands them over: read in nfd-master's dialect. */
    private static RuleObjects.RuleObject objectRules(String name, String rulesYaml) throws Exception {
        List<String> skipped = new java.util.ArrayList<>();
        List<io.nodelabeller.config.rules.Rule> rules = io.nodelabeller.config.rules.RuleReader.readObjectRules(name,
                io.nodelabeller.config.yaml.Yaml.readTree(name, rulesYaml), skipped);
        assertEquals(List.of(), skipped);
        return new RuleObjects.RuleObject(name, rules);
    }

    /**
     * nfd-master's dialect (issue #37 items 1-3): Ge/Le/GeLe, type: version on the kernel's flavoured version, and an
     * expression that is wrong for its operator does nothing until it is evaluated on an element that is there — the
     * rule is read, a missing element or a matchAny branch that matched first keeps it harmless, and where it is
     * evaluated only that rule fails, with one warning.
     */
    @Test
    void objectsSpeakNfdMastersDialectAndFailOnlyWhereAWrongExpressionIsEvaluated() throws Exception {
        RuleObjects.RuleObject o = objectRules("dialect", """
                - name: kernel at least 5.15
                  labels: {vendor.io/kernel-5.15: "true"}
                  matchFeatures:
                    - feature: kernel.version
                      matchExpressions: {full: {op: Ge, value: ["5.15"], type: version}, major: {op: GeLe, value: ["6", "7"]}}
                - name: kernel below 6.8 (no)
                  labels: {vendor.io/old-kernel: "true"}
                  matchFeatures:
                    - feature: kernel.version
                      matchExpressions: {full: {op: Lt, value: ["6.8"], type: version}}
                - name: wrong only for a missing element
                  labels: {vendor.io/harmless: "true"}
                  matchAny:
                    - matchFeatures: [{feature: kernel.version, matchExpressions: {absent: {op: Gt, value: ["1", "2"]}}}]
                    - matchFeatures: [{feature: kernel.version, matchExpressions: {major: {op: In, value: ["6"]}}}]
                - name: wrong in a branch after one that matched
                  labels: {vendor.io/any: "true"}
                  matchAny:
                    - matchFeatures: [{feature: kernel.version, matchExpressions: {major: {op: In, value: ["6"]}}}]
                    - matchFeatures: [{feature: kernel.version, matchExpressions: {full: {op: Gt, value: ["5"], type: semver}}}]
                - name: wrong where it is evaluated
                  labels: {vendor.io/never: "true"}
                  matchFeatures:
                    - feature: kernel.version
                      matchExpressions: {full: {op: Gt, value: ["5"]}}
                - name: after the failing one
                  labels: {vendor.io/after: "true"}
                """);
        NodeFeatureRuleLabeler labeler = new NodeFeatureRuleLabeler(objects(true, o));
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(NodeFeatureRuleLabeler.class)) {
            Labeler.Produced p = labeler.produce(FEATURES);
            labeler.produce(FEATURES);
            Map<String, String> labels = Map.copyOf(p.labels().stream().collect(java.util.stream.Collectors.toMap(Label::key, Label::value)));
            assertEquals(Map.of("vendor.io/kernel-5.15", "true", "vendor.io/harmless", "true", "vendor.io/any", "true",
                    "vendor.io/after", "true"), labels);
            List<String> warnings = log.messages(ch.qos.logback.classic.Level.WARN);
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("rule 'wrong where it is evaluated' skipped: not a number '6.8.0-45-generic'"),
                    warnings.get(0));
        }
    }

    @Test
    void anUnknownViewMakesItsOutputsUncertain() {
        Labeler.Produced p = new NodeFeatureRuleLabeler(objects(false)).produce(FEATURES);
        assertEquals(Set.of(RuleObjects.INPUT), p.uncertain());
        assertEquals(List.of(), p.labels());
    }

    @Test
    void everyKindIsPrefixedAndCheckedAsNfdMasterChecksIt() throws Exception {
        RuleObjects.RuleObject o = object("o", """
                - name: outputs
                  labels: {plain: "true"}
                  annotations:
                    note: "%s"
                    kubernetes.io/evil: "x"
                    vendor.io/long: "%s"
                  taints:
                    - {key: vendor.io/dedicated, value: gpu, effect: NoSchedule}
                    - {key: unprefixed, effect: NoExecute}
                    - {key: node.kubernetes.io/evil, effect: NoSchedule}
                  extendedResources:
                    cores: "2k"
                    vendor.io/half: "500m"
                    vendor.io/neg: "-1"
                    vendor.io/mem: "1Gi"
                """.formatted("x".repeat(1024), "x".repeat(1025)));
        Labelling all = new Labelling(Map.of(NodeFeatureRuleLabeler.NAME, new NodeFeatureRuleLabeler(objects(true, o))),
                LabelValidity.defaults(), null, EnumSet.allOf(Kind.class));
        LabelSet set = all.label(FEATURES);
        assertEquals(Set.of("feature.node.kubernetes.io/plain"), set.asMap(Kind.LABEL).keySet());
        assertEquals(Set.of("feature.node.kubernetes.io/note"), set.asMap(Kind.ANNOTATION).keySet(), "1024 is the limit");
        assertEquals(Map.of("vendor.io/dedicated:NoSchedule", "gpu"), set.asMap(Kind.TAINT), "taints are never prefixed");
        assertEquals(Map.of("feature.node.kubernetes.io/cores", "2k", "vendor.io/mem", "1Gi"), set.asMap(Kind.EXTENDED_RESOURCE),
                "whole, non-negative quantities only");
        assertEquals(6, set.dropped().size(), set.dropped().toString());

        // taints and extended resources only where switched on; annotations with labels by default in run
        LabelSet off = new Labelling(Map.of(NodeFeatureRuleLabeler.NAME, new NodeFeatureRuleLabeler(objects(true, o))),
                LabelValidity.defaults(), null, EnumSet.of(Kind.LABEL, Kind.ANNOTATION)).label(FEATURES);
        assertEquals(Map.of(), off.asMap(Kind.TAINT));
        assertEquals(Map.of(), off.asMap(Kind.EXTENDED_RESOURCE));
        assertEquals(1, off.asMap(Kind.ANNOTATION).size());
    }

    @Test
    void customRulesInFilesHaveTheSameOutputs() throws Exception {
        CustomLabeler custom = new CustomLabeler(RuleEngineTest.rules("""
                - name: from a file
                  annotations: {vendor.io/note: "hi"}
                  taints: [{key: vendor.io/t, effect: PreferNoSchedule}]
                  extendedResources: {vendor.io/r: "@kernel.version.major"}
                """));
        Labeler.Produced p = custom.produce(FEATURES);
        assertEquals("hi", p.others().get(Kind.ANNOTATION).get(0).value());
        assertEquals("vendor.io/t:PreferNoSchedule", p.others().get(Kind.TAINT).get(0).key());
        assertEquals("6", p.others().get(Kind.EXTENDED_RESOURCE).get(0).value());
    }
}
