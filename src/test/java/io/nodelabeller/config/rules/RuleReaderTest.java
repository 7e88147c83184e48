package io.nodelabeller.config.rules;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RuleReaderTest {

    @TempDir
    Path tmp;

    private static List<Rule> custom(String rulesYaml) throws ConfigException {
        return Catalog.configLoader().parse("c.yaml", "sources:\n  custom:\n" + rulesYaml.indent(4)).sources().custom();
    }

    private static List<String> problems(String rulesYaml) {
        return assertThrows(ConfigException.class, () -> custom(rulesYaml)).problems();
    }

    @Test
    void shorthandsOfNfdsWorkerConfig() throws Exception {
        Rule r = custom("""
                - name: shorthands
                  labels: {a: "true", n: 1, b: false}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions:
                        vendor: "8086"
                        device: ["1234", "5678"]
                        sriov_totalvfs: null
                        class: {op: InRegexp, value: "^02"}
                        subsystem_vendor: {op: Gt, value: 7}
                    - feature: kernel.loadedmodule
                      matchExpressions: ["e1000e", "foo=bar"]
                      matchName: {op: In, value: [e1000e]}
                """).get(0);
        Map<String, MatchExpression> expected = new LinkedHashMap<>();
        expected.put("vendor", MatchExpression.of(Op.In, "8086"));
        expected.put("device", MatchExpression.of(Op.In, "1234", "5678"));
        expected.put("sriov_totalvfs", MatchExpression.of(Op.Exists));
        expected.put("class", MatchExpression.of(Op.InRegexp, "^02"));
        expected.put("subsystem_vendor", MatchExpression.of(Op.Gt, "7"));
        assertEquals(expected, r.matchFeatures().get(0).matchExpressions());
        assertNull(r.matchFeatures().get(0).matchName());
        assertEquals(Map.of("e1000e", MatchExpression.of(Op.Exists), "foo", MatchExpression.of(Op.In, "bar")),
                r.matchFeatures().get(1).matchExpressions());
        assertEquals(MatchExpression.of(Op.In, "e1000e"), r.matchFeatures().get(1).matchName());
        assertEquals(Map.of("a", "true", "n", "1", "b", "false"), r.labels());
    }

    @Test
    void aRuleWithoutANameIsCalledByItsPlace() throws Exception {
        List<Rule> rules = custom("- {labels: {a: \"1\", empty: }}\n- {name: \"\", labels: {b: \"2\"}}\n");
        assertEquals(List.of("sources.custom[0]", "sources.custom[1]"), rules.stream().map(Rule::name).toList());
        assertEquals(Map.of("a", "1", "empty", ""), rules.get(0).labels());
    }

    @Test
    void termWithoutExpressionsKeepsThemAbsent() throws Exception {
        FeatureTerm t = custom("- {name: x, matchFeatures: [{feature: pci.device}]}").get(0).matchFeatures().get(0);
        assertNull(t.matchExpressions());
        assertNull(t.matchName());
    }

    @Test
    void everyRuleProblemHasItsExactKeyPath() {
        assertEquals(List.of(
                "c.yaml: sources.custom[0].name: expected a string, got a list",
                "c.yaml: sources.custom[1].matchFeature: unknown key (expected one of: name, labels, labelsTemplate, vars, "
                        + "varsTemplate, matchFeatures, matchAny, annotations, taints, extendedResources)",
                "c.yaml: sources.custom[2].matchFeatures[0].matchExpressions.vendor.op: expected one of In, NotIn, "
                        + "InRegexp, Exists, DoesNotExist, Gt, Lt, GtLt, IsTrue, IsFalse, got 'Equals'",
                "c.yaml: sources.custom[2].matchFeatures[0].matchExpressions.speed.value: expected exactly one integer "
                        + "value for op Gt, got [fast]",
                "c.yaml: sources.custom[2].matchFeatures[0].matchExpressions.class.value: expected valid regular "
                        + "expressions (Go RE2 syntax) for op InRegexp, '([' is not: error parsing regexp: missing closing ]: `[`",
                "c.yaml: sources.custom[2].matchFeatures[0].matchExpressions.mtu.value: expected the first value to be "
                        + "less than the second for op GtLt, got [9000, 1500]",
                "c.yaml: sources.custom[2].matchFeatures[0].matchExpressions.x.value: expected no value for op Exists, "
                        + "got [1]",
                "c.yaml: sources.custom[2].matchFeatures[0].matchExpressions.y: expected at least one value for op In",
                "c.yaml: sources.custom[2].matchFeatures[1].feature: expected a feature name <domain>.<feature> such as "
                        + "pci.device, got 'pcidevice'",
                "c.yaml: sources.custom[2].matchFeatures[1].matchName.value: expected no value for op \"\" (any), got [a]",
                "c.yaml: sources.custom[2].matchAny[0].matchFeatures: expected a list of feature terms (required in matchAny)",
                "c.yaml: sources.custom[2].matchAny[1].matchFeatures[0].matchExpressions[1]: expected a name or name=value",
                "c.yaml: sources.custom[3].labels.bad: expected @<domain>.<feature>.<element> (a reference to an "
                        + "attribute), got '@kernel.version'",
                "c.yaml: sources.custom[3].vars.list: expected a string value",
                "c.yaml: sources.custom[3].labelsTemplate: expected a Go template: at offset 34: function \"nosuch\" "
                        + "not defined",
                "c.yaml: sources.custom[4]: expected a rule (a mapping with name, labels, matchFeatures, ...), got null"),
                problems("""
                        - {name: [a], labels: {a: "1"}}
                        - name: nfr-only
                          annotations: {a: b}
                          matchFeature: []
                        - name: bad-expressions
                          matchFeatures:
                            - feature: network.device
                              matchExpressions:
                                vendor: {op: Equals, value: ["8086"]}
                                speed: {op: Gt, value: [fast]}
                                class: {op: InRegexp, value: ["^03", "(["]}
                                mtu: {op: GtLt, value: ["9000", "1500"]}
                                x: {op: Exists, value: 1}
                                y: []
                            - feature: pcidevice
                              matchName: {value: [a]}
                          matchAny:
                            - {}
                            - matchFeatures: [{feature: a.b, matchExpressions: [ok, "=x"]}]
                        - name: bad-values
                          labels: {bad: "@kernel.version"}
                          vars: {list: [1]}
                          labelsTemplate: "{{ range .pci.device }}{{ .Name | nosuch }}{{ end }}"
                        -
                        """));
    }

    /**
     * nfd-worker's own leniencies and strictness (source/custom/api/expression.go, types.go, and its test table
     * TestMatchExpressionValidate / TestUnmarshalMatchExpressionSet): no op or {@code op: ""} is MatchAny, which holds
     * for anything and takes no value; keys besides op and value are dropped by its struct decoding (a warning here);
     * a scalar number or boolean is a value (1.23, true), in a list only strings are.
     */
    @Test
    void theWorkersLeniencies() throws Exception {
        var loaded = Catalog.configLoader().parse("c.yaml", "sources:\n  custom:\n" + """
                - name: lenient
                  labels: {a: "1"}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions:
                        vendor: {}
                        class: {op: ""}
                        device: {op: In, value: ["1"], type: version}
                        subsystem_vendor: {op: In, value: 1.23}
                        subsystem_device: {op: In, value: true}
                        sriov_totalvfs: 1.0
                """.indent(4));
        Map<String, MatchExpression> x = loaded.sources().custom().get(0).matchFeatures().get(0).matchExpressions();
        assertEquals(MatchExpression.of(Op.Any), x.get("vendor"));
        assertEquals(MatchExpression.of(Op.Any), x.get("class"));
        assertEquals(MatchExpression.of(Op.In, "1"), x.get("device"));
        assertEquals(MatchExpression.of(Op.In, "1.23"), x.get("subsystem_vendor"));
        assertEquals(MatchExpression.of(Op.In, "true"), x.get("subsystem_device"));
        assertEquals(MatchExpression.of(Op.In, "1"), x.get("sriov_totalvfs"), "Go's FormatFloat(1.0, 'f', -1, 64)");
        assertEquals(List.of("c.yaml: sources.custom[0].matchFeatures[0].matchExpressions.device.type: unknown key ignored,"
                + " as NFD's worker ignores it (an expression has op and value)"), loaded.warnings());

        assertEquals(List.of(
                "c.yaml: sources.custom[0].matchFeatures[0].matchExpressions.vendor.value: expected no value for op \"\" (any), got [x]",
                "c.yaml: sources.custom[0].matchFeatures[0].matchExpressions.device.value[1]: expected a string, got 5678"
                        + " (NFD refuses an unquoted number or boolean in a list: quote it)",
                "c.yaml: sources.custom[0].matchFeatures[0].matchExpressions.class[0]: expected a string, got true"
                        + " (NFD refuses an unquoted number or boolean in a list: quote it)"),
                problems("""
                        - name: strict
                          matchFeatures:
                            - feature: pci.device
                              matchExpressions:
                                vendor: {op: "", value: [x]}
                                device: {op: In, value: ["1234", 5678]}
                                class: [true]
                        """));
    }

    /** In a custom.d file too: the rule is used, the ignored key is one warning of the loaded config. */
    @Test
    void aCustomDFilesIgnoredKeyIsAWarningAndItsRuleIsUsed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("custom.d"));
        Files.writeString(dir.resolve("team.yaml"), """
                - name: versioned
                  labels: {v: "1"}
                  matchFeatures:
                    - feature: kernel.version
                      matchExpressions: {major: {op: Gt, value: "5", type: version}}
                """);
        Path cfg = Files.writeString(tmp.resolve("c.yaml"), "core:\n  customRulesDir: " + dir + "\n");
        var config = Catalog.configLoader().load(cfg);
        assertEquals(List.of("versioned"), config.sources().custom().stream().map(Rule::name).toList());
        assertEquals(List.of(dir.resolve("team.yaml") + ": [0].matchFeatures[0].matchExpressions.major.type: unknown key"
                + " ignored, as NFD's worker ignores it (an expression has op and value)"), config.warnings());
    }

    /** In a NodeFeatureRule object (nfd-master's language) none of that: no op is a problem, and the rule is skipped. */
    @Test
    void theObjectsLanguageHasNoneOfIt() throws Exception {
        var rules = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                [{"name": "any", "labels": {"a": "1"},
                  "matchFeatures": [{"feature": "pci.device", "matchExpressions": {"vendor": {}}}]},
                 {"name": "ok", "labels": {"b": "1"},
                  "matchFeatures": [{"feature": "pci.device", "matchExpressions": {"vendor": {"op": "Exists"}}}]}]""");
        List<String> skipped = new java.util.ArrayList<>();
        List<Rule> read = RuleReader.readObjectRules("NodeFeatureRule x", rules, skipped);
        assertEquals(List.of("ok"), read.stream().map(Rule::name).toList());
        assertEquals(1, skipped.size());
        assertTrue(skipped.get(0).contains("rule 'any' skipped") && skipped.get(0).contains("expected an operator"),
                skipped.get(0));
    }

    /**
     * Ge, Le and GeLe and {@code type} are nfd-master's: the worker config refuses the operators (naming why) and
     * ignores the key; an object keeps them, and keeps an expression wrong for its operator for evaluation.
     */
    @Test
    void theObjectsOwnOperatorsAndTypeStayInTheObjects() throws Exception {
        List<String> p = problems("- {name: r, matchFeatures: [{feature: a.b, matchExpressions: {k: {op: GeLe, value: [\"1\", \"2\"]}}}]}");
        assertEquals(1, p.size(), p.toString());
        assertTrue(p.get(0).contains("got 'GeLe' (Ge, Le and GeLe are nfd-master's, for NodeFeatureRule objects: NFD's worker"
                + " config has none)") && p.get(0).contains("expected one of In, NotIn, InRegexp, Exists, DoesNotExist, Gt, Lt,"
                + " GtLt, IsTrue, IsFalse,"), p.get(0));
        var rules = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                [{"name": "v", "labels": {"a": "1"}, "matchFeatures": [{"feature": "kernel.version", "matchExpressions": {
                  "full": {"op": "GeLe", "value": ["5.15", "6.9"], "type": "version"},
                  "major": {"op": "Gt", "value": ["1", "2"]}}}]},
                 {"name": "t", "labels": {"b": "1"}, "matchFeatures": [{"feature": "kernel.version", "matchExpressions": {
                  "full": {"op": "Ge", "value": ["5"], "type": ["version"]}}}]}]""");
        List<String> skipped = new java.util.ArrayList<>();
        List<Rule> read = RuleReader.readObjectRules("NodeFeatureRule x", rules, skipped);
        assertEquals(List.of("v"), read.stream().map(Rule::name).toList());
        assertEquals(new MatchExpression(Op.GeLe, List.of("5.15", "6.9"), "version"),
                read.get(0).matchFeatures().get(0).matchExpressions().get("full"));
        assertEquals(MatchExpression.of(Op.Gt, "1", "2"), read.get(0).matchFeatures().get(0).matchExpressions().get("major"),
                "kept as written: nfd-master checks it when it evaluates it");
        assertTrue(skipped.get(0).contains("rule 't' skipped") && skipped.get(0).contains("type: expected a string"),
                skipped.toString());
    }

    @Test
    void gtValidationFollowsNfd() {
        for (String bad : List.of("{op: Gt, value: []}", "{op: Gt, value: [\"1\", \"2\"]}", "{op: Lt, value: [\"1.5\"]}",
                "{op: GtLt, value: [\"1\"]}", "{op: GtLt, value: [a, \"2\"]}", "{op: IsTrue, value: [x]}", "{op: In}",
                "{op: NotIn, value: []}", "{op: InRegexp}")) {
            List<String> p = problems("- {name: r, matchFeatures: [{feature: a.b, matchExpressions: {k: " + bad + "}}]}");
            assertEquals(1, p.size(), bad + " -> " + p);
        }
        for (String good : List.of("{op: Gt, value: [\"-3\"]}", "{op: Lt, value: 5}", "{op: GtLt, value: [\"1\", \"10\"]}",
                "{op: IsTrue}", "{op: DoesNotExist}", "{op: NotIn, value: [a, b]}")) {
            assertEquals(1, assertDoesNotThrow(good).size());
        }
    }

    private static List<Rule> assertDoesNotThrow(String expr) {
        try {
            return custom("- {name: r, matchFeatures: [{feature: a.b, matchExpressions: {k: " + expr + "}}]}");
        } catch (ConfigException e) {
            throw new AssertionError(expr + ": " + e.problems());
        }
    }

    @Test
    void customDirectoryRulesRunAfterConfigRulesAndABadFileIsSkippedAloneButListedByCheckConfig() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("custom.d"));
        Files.writeString(dir.resolve("b.yaml"), "- {name: from-b, labels: {b: \"1\"}}\n");
        Files.writeString(dir.resolve("a.yaml"), "- {name: from-a, labels: {a: \"1\"}}\n");
        Files.writeString(dir.resolve(".hidden.yaml"), "not: [valid\n");
        Files.createDirectories(dir.resolve("..2026_11_22"));
        Files.writeString(dir.resolve("..2026_11_22/x.yaml"), "garbage: [\n");
        Files.createDirectories(dir.resolve("team"));
        Files.writeString(dir.resolve("team/rules.yaml"), "- {name: from-team, labels: {t: \"1\"}}\n");
        Files.writeString(dir.resolve("empty.yaml"), "");
        Path cfg = tmp.resolve("config.yaml");
        Files.writeString(cfg, "core:\n  customRulesDir: " + dir + "\nsources:\n  custom:\n    - {name: from-config, labels: {c: \"1\"}}\n");
        Config c = Catalog.configLoader().load(cfg);
        assertEquals(List.of("from-config", "from-a", "from-b", "from-team"),
                c.sources().custom().stream().map(Rule::name).toList());

        Files.writeString(dir.resolve("c.yaml"), "- name: bad\n  matchFeatures: [{feature: pci.device, matchExpressions: "
                + "{vendor: {op: Gt, value: [x]}}}]\n- {name: ok}\n- name: worse\n  taints: [{key: k, effect: Sometimes}]\n");
        Files.writeString(dir.resolve("d.yaml"), "name: not-a-list\n");
        Files.writeString(dir.resolve("e.yaml"), "- [unclosed\n");
        // the agent, as NFD's worker: each file it cannot use is left out whole, in one line; the others are used
        Config lenient = Catalog.configLoader().load(cfg);
        assertEquals(List.of("from-config", "from-a", "from-b", "from-team"),
                lenient.sources().custom().stream().map(Rule::name).toList());
        assertEquals(3, lenient.warnings().size(), lenient.warnings().toString());
        assertEquals(dir.resolve("c.yaml") + ": rule file skipped, as NFD skips a rules file it cannot use: "
                + dir.resolve("c.yaml") + ": [0].matchFeatures[0].matchExpressions.vendor.value: expected exactly one "
                + "integer value for op Gt, got [x] (and 1 more problem(s); check-config lists them)", lenient.warnings().get(0));
        assertTrue(lenient.warnings().get(1).startsWith(dir.resolve("d.yaml") + ": rule file skipped"));
        assertTrue(lenient.warnings().get(2).startsWith(dir.resolve("e.yaml") + ": rule file skipped"));

        // check-config (strict): every problem of every file, with those of the config file
        Files.writeString(cfg, "core:\n  customRulesDir: " + dir + "\n  noPublish: maybe\n");
        List<String> p = assertThrows(ConfigException.class, () -> Catalog.configLoader().strict().load(cfg)).problems();
        assertEquals(List.of(
                cfg + ": core.noPublish: expected true or false, got a string 'maybe'",
                dir.resolve("c.yaml") + ": [0].matchFeatures[0].matchExpressions.vendor.value: expected exactly one "
                        + "integer value for op Gt, got [x]",
                dir.resolve("c.yaml") + ": [2].taints[0].effect: expected one of NoSchedule, PreferNoSchedule, "
                        + "NoExecute, got 'Sometimes'",
                dir.resolve("d.yaml") + ": (top level): expected a list of rules"), p.subList(0, 4));
        assertEquals(5, p.size(), p.toString());
        assertEquals(true, p.get(4).startsWith(dir.resolve("e.yaml") + ": not valid YAML at line"), p.get(4));
    }

    @Test
    void aConfigMapMountedAsCustomDIsReadOnce() throws Exception {
        // what the kubelet makes of a ConfigMap volume: a hidden timestamped directory, a hidden ..data link to
        // it, and one visible link per key
        Path dir = Files.createDirectories(tmp.resolve("custom.d"));
        Path real = Files.createDirectories(dir.resolve("..2026_11_22_09_00_00.123"));
        Files.writeString(real.resolve("gpu.yaml"), "- {name: from-configmap, labels: {g: \"1\"}}\n");
        Files.createSymbolicLink(dir.resolve("..data"), real.getFileName());
        Files.createSymbolicLink(dir.resolve("gpu.yaml"), Path.of("..data/gpu.yaml"));
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "core:\n  customRulesDir: " + dir + "\n");
        assertEquals(List.of("from-configmap"), Catalog.configLoader().load(cfg).sources().custom().stream().map(Rule::name).toList());
    }

    @Test
    void missingOrDisabledDirectoryGivesNoRules() throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "core:\n  customRulesDir: " + tmp.resolve("nope") + "\n");
        assertEquals(List.of(), Catalog.configLoader().load(cfg).sources().custom());
        Files.writeString(cfg, "core:\n  customRulesDir: \"\"\n");
        assertEquals(List.of(), Catalog.configLoader().load(cfg).sources().custom());
    }

    /**
     * NodeFeatureRule outputs in a custom rule are accepted and checked, as NFD's worker accepts its rules with them
     * (pkg/apis/nfd/nodefeaturerule: one Rule type for both), so that one rule file serves both; they are kept on
     * the rule, not applied.
     */
    @Test
    void nodeFeatureRuleOutputsAreAcceptedAndChecked() throws Exception {
        Config c = Catalog.configLoader().parse("c.yaml", """
                sources:
                  custom:
                    - name: gpu-nodes
                      labels: {gpu: "true"}
                      annotations: {example.com/note: "has a GPU"}
                      taints: [{key: example.com/gpu, value: "true", effect: NoSchedule}, {key: dedicated, effect: NoExecute}]
                      extendedResources: {example.com/widgets: "@kernel.version.major"}
                      matchFeatures: [{feature: pci.device, matchExpressions: {vendor: "10de"}}]
                """);
        Rule r = c.sources().custom().get(0);
        assertEquals(Map.of("example.com/note", "has a GPU"), r.annotations());
        assertEquals(List.of(new Rule.Taint("example.com/gpu", "true", "NoSchedule"), new Rule.Taint("dedicated", "", "NoExecute")),
                r.taints());
        assertEquals(Map.of("example.com/widgets", "@kernel.version.major"), r.extendedResources());

        List<String> p = assertThrows(ConfigException.class, () -> Catalog.configLoader().parse("c.yaml",
                "sources:\n  custom:\n    - {name: x, taints: {key: k}, annotations: {a: [1]}}\n")).problems();
        assertEquals(List.of("c.yaml: sources.custom[0].annotations.a: expected a string value",
                "c.yaml: sources.custom[0].taints: expected a list of taints ({key, value, effect})"), p);
    }
}
