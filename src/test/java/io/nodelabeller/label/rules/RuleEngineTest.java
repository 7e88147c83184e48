package io.nodelabeller.label.rules;

import io.nodelabeller.config.yaml.Yaml;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.yaml.YamlNode;
import io.nodelabeller.config.rules.Rule;
import io.nodelabeller.config.rules.RuleReader;
import io.nodelabeller.feature.Features;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rules evaluated on feature snapshots built here, including NFD's own example rules (NFD's customization guide and pkg/apis/nfd/nodefeaturerule tests). */
class RuleEngineTest {

    /** Rules from YAML (a list of rules, as in a custom.d file); fails on any config problem. */
    static List<Rule> rules(String yaml) throws Exception {
        List<String> problems = new ArrayList<>();
        List<Rule> rules = RuleReader.readList(YamlNode.root("test.yaml", Yaml.readTree("test.yaml", yaml), problems));
        assertEquals(List.of(), problems);
        return rules;
    }

    /** All labels of a run, in rule order (a later rule wins). */
    static Map<String, String> labels(RuleEngine.Result r) {
        Map<String, String> out = new LinkedHashMap<>();
        r.outputs().forEach(o -> out.putAll(o.labels()));
        return out;
    }

    static Map<String, String> run(String yaml, Features f) throws Exception {
        RuleEngine.Result r = RuleEngine.run(rules(yaml), f);
        assertEquals(List.of(), r.warnings());
        return labels(r);
    }

    private static Map<String, String> inst(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    // --- NFD's examples -------------------------------------------------------------------------------------

    private static final String SAMPLE_RULE = """
            - name: "my sample rule"
              labels: {"vendor.io/my-sample-feature": "true"}
              matchFeatures:
                - feature: kernel.loadedmodule
                  matchExpressions: {dummy: {op: Exists}}
                - feature: kernel.config
                  matchExpressions: {X86: {op: In, value: ["y"]}}
            """;

    /** NFD's pkg/apis/nfd/nodefeaturerule/rule_test.go TestTemplating: its features, rule r1 and its expected output. */
    private static final Features NFD_TEMPLATING = Features.builder("domain_1")
            .flags("kf_1", List.of("key-a", "key-b", "key-c"))
            .attributes("vf_1", Map.of("key-1", "val-1", "keu-2", "val-2", "key-3", "val-3", "key-4", "val-4"))
            .instance("if_1", inst("attr-1", "1", "attr-2", "val-2"))
            .instance("if_1", inst("attr-1", "10", "attr-2", "val-20"))
            .instance("if_1", inst("attr-1", "100", "attr-2", "val-200"))
            .instance("if_1", inst("attr-1", "1000", "attr-2", "val-2000", "attr-3", "3000"))
            .build();

    private static final String NFD_TEMPLATING_MATCHERS = """
                - feature: domain_1.kf_1
                  matchExpressions: {key-a: {op: Exists}, key-c: {op: Exists}, foo: {op: DoesNotExist}}
                - feature: domain_1.vf_1
                  matchExpressions: {key-1: {op: In, value: [val-1, val-2]}, bar: {op: DoesNotExist}}
                - feature: domain_1.if_1
                  matchExpressions: {attr-1: {op: Lt, value: ["100"]}}
                - feature: domain_1.if_1
                  matchExpressions: {attr-1: {op: Exists}, attr-2: {op: Exists}, attr-3: {op: Exists}}
            """;

    private static final String NFD_TEMPLATING_RULE = """
            - name: r1
              labels: {label-1: label-val-1}
              labelsTemplate: |
                label-1=will-be-overridden
                label-2=
                {{range .domain_1.kf_1}}kf-{{.Name}}=present
                {{end}}
                {{range .domain_1.vf_1}}vf-{{.Name}}=vf-{{.Value}}
                {{end}}
                {{range .domain_1.if_1}}if-{{index . "attr-1"}}_{{index . "attr-2"}}=present
                {{end}}
              vars: {var-1: var-val-1}
              varsTemplate: |
                var-1=value-will-be-overridden-by-vars
                var-2=
                {{range .domain_1.kf_1}}kf-{{.Name}}=true
                {{end}}
            """;

    @Test
    void nfdTemplatingTestGivesNfdsLabelsAndVarsWithMatchFeaturesAndWithMatchAny() throws Exception {
        Map<String, String> labels = Map.of("label-1", "label-val-1", "label-2", "",
                "kf-key-a", "present", "kf-key-c", "present", "kf-foo", "present",
                "vf-key-1", "vf-val-1", "vf-bar", "vf-",
                "if-1_val-2", "present", "if-10_val-20", "present", "if-1000_val-2000", "present");
        Map<String, String> vars = Map.of("var-1", "var-val-1", "var-2", "",
                "kf-key-a", "true", "kf-key-c", "true", "kf-foo", "true");
        String withMatchFeatures = NFD_TEMPLATING_RULE + "  matchFeatures:\n" + NFD_TEMPLATING_MATCHERS;
        String withMatchAny = NFD_TEMPLATING_RULE + "  matchAny:\n    - matchFeatures:\n"
                + NFD_TEMPLATING_MATCHERS.indent(4);
        for (String yaml : List.of(withMatchFeatures, withMatchAny)) {
            RuleEngine.Result r = RuleEngine.run(rules(yaml), NFD_TEMPLATING);
            assertEquals(List.of(), r.warnings());
            assertEquals(labels, r.outputs().get(0).labels(), yaml);
            assertEquals(vars, r.outputs().get(0).vars(), yaml);
        }
    }

    @Test
    void aRuleWithoutMatchersMatchesButItsTemplatesDoNotRunAsInNfd() throws Exception {
        // NFD's Execute runs templates only on what matchFeatures/matchAny matched; with neither, only labels apply
        Map<String, String> out = run("""
                - name: no-matchers
                  labels: {static: "yes"}
                  labelsTemplate: "from-template=yes"
                """, NFD_TEMPLATING);
        assertEquals(Map.of("static", "yes"), out);
    }

    @Test
    void customizationGuideCountsMatchedDevicesWithLenAndSprig() throws Exception {
        // NFD docs/usage/customization-guide.md, templating: count the matched Intel NICs, first one's class
        Features pci = Features.builder("pci")
                .instance("device", inst("class", "0200", "vendor", "8086", "device", "1572"))
                .instance("device", inst("class", "0200", "vendor", "8086", "device", "1593"))
                .instance("device", inst("class", "0300", "vendor", "10de", "device", "2330")).build();
        assertEquals(Map.of("num-intel-network-controllers", "2", "first-intel-network-controllers", "0200"), run("""
                - name: intel-nics
                  labelsTemplate: |
                    num-intel-network-controllers={{ .pci.device | len }}
                    first-intel-network-controllers={{ (.pci.device | first).class | trim | substr 0 63 }}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions:
                        vendor: {op: In, value: ["8086"]}
                        class: {op: In, value: ["0200"]}
                """, pci));
    }

    @Test
    void sprigDatesAndCamelcaseWorkInARule() throws Exception {
        // a features.d date turned into a label: toDate/date (Sprig date.go) and camelcase (xstrings ToPascalCase)
        Features local = Features.builder("local").attributes("label", Map.of("build_date", "2024-02-29")).build();
        assertEquals(Map.of("BuildDate", "Feb-2024", "built-before-2025", "true"), run("""
                - name: dates-and-case
                  labelsTemplate: |
                    {{ range .local.label }}{{ camelcase .Name }}={{ toDate "2006-01-02" .Value | date "Jan-2006" }}
                    built-before-2025={{ (toDate "2006-01-02" .Value).Before (toDate "2006" "2025") }}
                    {{ end }}
                  matchFeatures:
                    - feature: local.label
                      matchExpressions:
                        build_date: {op: Exists}
                """, local));
    }

    @Test
    void nfdSampleRule() throws Exception {
        Features yes = Features.builder("kernel").flags("loadedmodule", List.of("dummy", "ext4"))
                .attributes("config", Map.of("X86", "y", "PREEMPT", "y")).build();
        assertEquals(Map.of("vendor.io/my-sample-feature", "true"), run(SAMPLE_RULE, yes));
        Features noModule = Features.builder("kernel").flags("loadedmodule", List.of("ext4"))
                .attributes("config", Map.of("X86", "y")).build();
        assertEquals(Map.of(), run(SAMPLE_RULE, noModule));
        Features arm = Features.builder("kernel").flags("loadedmodule", List.of("dummy"))
                .attributes("config", Map.of("ARM64", "y")).build();
        assertEquals(Map.of(), run(SAMPLE_RULE, arm));
    }

    private static final String PCI_SAMPLE = """
            - name: "nfd built-in pci-<device>.present labels"
              labelsTemplate: |
                {{ range .pci.device }}pci-{{ .class }}_{{ .vendor }}.present=true
                {{ end }}
              matchFeatures:
                - feature: pci.device
                  matchExpressions:
                    "class": {op: InRegexp, value: ["^03", "^0b40", "^12"]}
            - name: "nfd built-in pci-<device>.sriov.capable labels"
              labelsTemplate: |
                {{ range .pci.device }}pci-{{ .class }}_{{ .vendor }}.sriov.capable=true
                {{ end }}
              matchFeatures:
                - feature: pci.device
                  matchExpressions:
                    "class": {op: InRegexp, value: ["^03", "^0b40", "^12"]}
                    "sriov_totalvfs": {op: Exists}
            """;

    @Test
    void nfdPciSampleRules() throws Exception {
        Features f = Features.builder("pci")
                .instance("device", inst("class", "0300", "vendor", "1a03", "device", "2000"))   // BMC VGA
                .instance("device", inst("class", "0302", "vendor", "10de", "device", "20b0", "sriov_totalvfs", "0"))
                .instance("device", inst("class", "0200", "vendor", "15b3", "device", "101b", "sriov_totalvfs", "16"))
                .instance("device", inst("class", "0b40", "vendor", "8086", "device", "0b25"))
                .instance("device", inst("class", "1200", "vendor", "1da3", "device", "1020"))
                .build();
        assertEquals(Map.of(
                "pci-0300_1a03.present", "true",
                "pci-0302_10de.present", "true",
                "pci-0b40_8086.present", "true",
                "pci-1200_1da3.present", "true",
                "pci-0302_10de.sriov.capable", "true"), run(PCI_SAMPLE, f));
    }

    @Test
    void nfdE2eMatchAnyBackrefsAndTemplates() throws Exception {
        // NFD's fake source (source/fake/fake.go), plus two rules that feed rule.matched the way the e2e test's
        // earlier rule objects do
        Features fake = Features.builder("fake")
                .flags("flag", List.of("flag_1", "flag_2", "flag_3"))
                .attributes("attribute", Map.of("attr_1", "true", "attr_2", "false", "attr_3", "10"))
                .instance("instance", inst("name", "instance_1", "attr_1", "true", "attr_2", "false", "attr_3", "10",
                        "attr_4", "foobar"))
                .instance("instance", inst("name", "instance_2", "attr_1", "true", "attr_2", "true", "attr_3", "100"))
                .instance("instance", inst("name", "instance_3"))
                .build();
        String yaml = """
                - name: "e2e-attribute-test-1"
                  labels: {e2e-attribute-test-1: "true"}
                  matchFeatures:
                    - feature: fake.attribute
                      matchExpressions: {attr_1: {op: IsTrue}, attr_2: {op: IsFalse}, attr_3: {op: GtLt, value: ["9", "11"]}}
                - name: "e2e-instance-test-1"
                  vars: {e2e-instance-test-1.123: "123"}
                  matchFeatures:
                    - feature: fake.instance
                      matchExpressions: {attr_3: {op: Gt, value: ["99"]}}
                - name: "e2e-matchany-test-1"
                  labels:
                    e2e-matchany-test-1: "true"
                    dynamic-label: "@rule.matched.e2e-attribute-test-1"
                  vars: {e2e-instance-test-1.not: "false"}
                  matchFeatures:
                    - feature: "rule.matched"
                      matchExpressions:
                        "e2e-attribute-test-1": {op: InRegexp, value: ["^tru"]}
                        "e2e-instance-test-1.123": {op: In, value: ["1", "12", "123"]}
                  matchAny:
                    - matchFeatures:
                        - feature: "fake.instance"
                          matchExpressions: {"attr_1": {op: In, value: ["nomatch"]}}
                    - matchFeatures:
                        - feature: "fake.instance"
                          matchExpressions: {"attr_3": {op: In, value: ["100"]}}
                - name: "e2e-template-test-1"
                  labelsTemplate: |
                    {{ range .fake.instance }}e2e-template-test-1-{{ .name }}=found
                    {{ end }}
                  matchFeatures:
                    - feature: "fake.instance"
                      matchExpressions: {"attr_1": {op: In, value: ["true"]}}
                - name: "sees vars of earlier rules"
                  labels: {saw-not: "@rule.matched.e2e-instance-test-1.not"}
                  matchFeatures:
                    - feature: rule.matched
                      matchExpressions: {e2e-instance-test-1.not: {op: IsFalse}}
                """;
        RuleEngine.Result r = RuleEngine.run(rules(yaml), fake);
        assertEquals(List.of(), r.warnings());
        assertEquals(Map.of(
                "e2e-attribute-test-1", "true",
                "e2e-matchany-test-1", "true",
                "dynamic-label", "true",
                "e2e-template-test-1-instance_1", "found",
                "e2e-template-test-1-instance_2", "found",
                "saw-not", "false"), labels(r));
        assertEquals(List.of("e2e-attribute-test-1", "e2e-instance-test-1", "e2e-matchany-test-1", "e2e-template-test-1",
                "sees vars of earlier rules"), r.outputs().stream().map(RuleEngine.Output::rule).toList());
        // vars are fed back, never labels
        assertEquals(Map.of("e2e-instance-test-1.123", "123"), r.outputs().get(1).vars());
    }

    // --- semantics ------------------------------------------------------------------------------------------

    @Test
    void rulesSeeOnlyEarlierRules() throws Exception {
        String yaml = """
                - name: early
                  labels: {early: "true"}
                  matchFeatures:
                    - feature: rule.matched
                      matchExpressions: {late: {op: Exists}}
                - name: late
                  labels: {late: "true"}
                - name: after
                  labels: {after: "true"}
                  matchFeatures:
                    - feature: rule.matched
                      matchExpressions: {late: {op: IsTrue}, early: {op: DoesNotExist}}
                """;
        assertEquals(Map.of("late", "true", "after", "true"), run(yaml, Features.empty()));
    }

    @Test
    void flagsAndAttributesOfOneFeatureAreAUnion() throws Exception {
        Features f = Features.builder("cpu").flags("cpuid", List.of("AVX2", "AVX512F"))
                .attributes("cpuid", Map.of("AVX10_VERSION", "1")).build();
        String yaml = """
                - name: union
                  labels: {union: "true"}
                  matchFeatures:
                    - feature: cpu.cpuid
                      matchExpressions: {AVX2: {op: Exists}, AVX10_VERSION: {op: Gt, value: ["0"]}, SGX: {op: DoesNotExist}}
                - name: absent-must-be-absent-in-both
                  labels: {wrong: "true"}
                  matchFeatures:
                    - feature: cpu.cpuid
                      matchExpressions: {AVX10_VERSION: {op: DoesNotExist}}
                - name: in-on-a-flag-is-false
                  labels: {wrong2: "true"}
                  matchFeatures:
                    - feature: cpu.cpuid
                      matchExpressions: {AVX2: {op: In, value: ["AVX2"]}}
                """;
        assertEquals(Map.of("union", "true"), run(yaml, f));
    }

    @Test
    void instancesMatchWhenOneInstanceSatisfiesEveryExpression() throws Exception {
        Features f = Features.builder("pci")
                .instance("device", inst("class", "0300", "vendor", "10de"))
                .instance("device", inst("class", "0200", "vendor", "15b3", "sriov_totalvfs", "8"))
                .build();
        String yaml = """
                - name: split-across-instances
                  labels: {wrong: "true"}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions: {class: "0300", vendor: "15b3"}
                - name: one-instance
                  labels: {mlx-nic: "true"}
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions: {class: ["0200", "0207"], vendor: "15b3", sriov_totalvfs: null}
                - name: not-in-needs-the-attribute
                  labelsTemplate: "{{ range .pci.device }}no-sriov-{{ .vendor }}=true{{ end }}"
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions: {sriov_totalvfs: {op: DoesNotExist}, vendor: {op: NotIn, value: ["8086"]}}
                """;
        assertEquals(Map.of("mlx-nic", "true", "no-sriov-10de", "true"), run(yaml, f));
    }

    /**
     * The worker's MatchAny ({@code {}} or {@code op: ""}): holds for every instance and for an attribute that is not
     * there, whose element then has the empty value (nodefeaturerule/expression.go, MatchGetValues: values[n]).
     */
    @Test
    void theWorkersAnyHoldsForAnythingPresentOrNot() throws Exception {
        Features f = Features.builder("pci")
                .instance("device", inst("class", "0300", "vendor", "10de"))
                .instance("device", inst("class", "0200", "vendor", "15b3"))
                .attributes("dmi", Map.of("vendor", "acme"))
                .build();
        String yaml = """
                - name: any-instance
                  labelsTemplate: "{{ range .pci.device }}any-{{ .vendor }}=true\\n{{ end }}"
                  matchFeatures:
                    - feature: pci.device
                      matchExpressions: {sriov_totalvfs: {}, class: {op: ""}}
                - name: any-attribute
                  labelsTemplate: "{{ range .pci.dmi }}{{ .Name }}={{ .Value }}x\\n{{ end }}"
                  matchFeatures:
                    - feature: pci.dmi
                      matchExpressions: {vendor: {op: ""}, serial: {}}
                """;
        assertEquals(Map.of("any-10de", "true", "any-15b3", "true", "vendor", "acmex", "serial", "x"), run(yaml, f));
    }

    @Test
    void matchNameAndListOfNamesShorthand() throws Exception {
        Features f = Features.builder("kernel")
                .flags("loadedmodule", List.of("nvidia", "nvidia_uvm", "nvidia_modeset", "ext4"))
                .attributes("config", Map.of("NO_HZ", "y", "PREEMPT", "n")).build();
        String yaml = """
                - name: kmods
                  labelsTemplate: |
                    {{- range .kernel.loadedmodule }}
                    kmod-{{ .Name }}=true
                    {{- end }}
                  matchFeatures:
                    - feature: kernel.loadedmodule
                      matchName: {op: InRegexp, value: ["^nvidia"]}
                - name: names
                  labels: {both: "true"}
                  matchFeatures:
                    - feature: kernel.loadedmodule
                      matchExpressions: ["nvidia", "ext4"]
                    - feature: kernel.config
                      matchExpressions: ["NO_HZ=y", "PREEMPT"]
                - name: names-mismatch
                  labels: {wrong: "true"}
                  matchFeatures:
                    - feature: kernel.config
                      matchExpressions: ["PREEMPT=y"]
                - name: config-template
                  labelsTemplate: "{{ range .kernel.config }}kconfig-{{ .Name }}={{ .Value }}\\n{{ end }}"
                  matchFeatures:
                    - feature: kernel.config
                      matchName: {op: In, value: [NO_HZ, PREEMPT]}
                """;
        assertEquals(Map.of("kmod-nvidia", "true", "kmod-nvidia_uvm", "true", "kmod-nvidia_modeset", "true",
                "both", "true", "kconfig-NO_HZ", "y", "kconfig-PREEMPT", "n"), run(yaml, f));
    }

    @Test
    void matchAnyTemplatesRunPerMatchingBranchAndMatchFeaturesMustAlsoHold() throws Exception {
        Features f = Features.builder("nvidia")
                .instance("gpu", inst("index", "0", "product", "A100"))
                .instance("gpu", inst("index", "1", "product", "H100"))
                .attributes("driver", Map.of("major", "550")).build();
        String yaml = """
                - name: per-branch
                  labelsTemplate: "{{ range .nvidia.gpu }}gpu-{{ .product }}=present\\n{{ end }}"
                  matchAny:
                    - matchFeatures: [{feature: nvidia.gpu, matchExpressions: {product: A100}}]
                    - matchFeatures: [{feature: nvidia.gpu, matchExpressions: {product: V100}}]
                    - matchFeatures: [{feature: nvidia.gpu, matchExpressions: {product: H100}}]
                - name: both-needed
                  labels: {wrong: "true"}
                  matchAny:
                    - matchFeatures: [{feature: nvidia.gpu, matchExpressions: {product: A100}}]
                  matchFeatures:
                    - feature: nvidia.driver
                      matchExpressions: {major: {op: Lt, value: ["500"]}}
                - name: no-matcher-always-matches
                  labels: {always: "yes"}
                """;
        assertEquals(Map.of("gpu-A100", "present", "gpu-H100", "present", "always", "yes"), run(yaml, f));
    }

    @Test
    void staticLabelsOverrideTemplateOutput() throws Exception {
        Features f = Features.builder("system").attributes("osrelease", Map.of("ID", "ubuntu", "VERSION_ID", "22.04"))
                .build();
        String yaml = """
                - name: os
                  labelsTemplate: |
                    {{ range .system.osrelease }}os-{{ .Name }}={{ .Value }}
                    {{ end }}
                  labels: {os-ID: "overridden"}
                  matchFeatures:
                    - feature: system.osrelease
                      matchExpressions: {ID: ubuntu, VERSION_ID: {op: InRegexp, value: ["^2[2-4]\\\\."]}}
                """;
        assertEquals(Map.of("os-ID", "overridden", "os-VERSION_ID", "22.04"), run(yaml, f));
    }

    @Test
    void featureNamesAreMatchedIgnoringCase() throws Exception {
        Features f = Features.builder("kernel").flags("loadedmodule", List.of("ib_uverbs")).build();
        assertEquals(Map.of("ib", "true"), run("""
                - name: case
                  labels: {ib: "true"}
                  matchFeatures: [{feature: Kernel.LoadedModule, matchExpressions: {ib_uverbs: null}}]
                """, f));
    }

    @Test
    void missingFeatureMeansNoMatchNotAnError() throws Exception {
        assertEquals(Map.of(), run("""
                - name: absent
                  labels: {x: "true"}
                  matchFeatures: [{feature: nvidia.gpu, matchExpressions: {product: {op: DoesNotExist}}}]
                """, Features.builder("pci").instances("device").build()));
    }

    @Test
    void aRuleThatCannotBeEvaluatedIsSkippedAndTheOthersRun() throws Exception {
        Features f = Features.builder("network")
                .instance("device", inst("name", "eth0", "speed", "unknown"))
                .instance("device", inst("name", "eth1", "speed", "25000")).build();
        String yaml = """
                - name: speed
                  labels: {fast-nic: "true"}
                  matchFeatures: [{feature: network.device, matchExpressions: {speed: {op: Gt, value: ["10000"]}}}]
                - name: bad-template-feature
                  labelsTemplate: "{{ range .pci.device }}x=y{{ end }}"
                  matchFeatures: [{feature: network.device}]
                - name: bad-template-field
                  labelsTemplate: "{{ range .network.device }}nic-{{ .mtu }}=true{{ end }}"
                  matchFeatures: [{feature: network.device, matchExpressions: {name: eth1}}]
                - name: line-without-equals
                  labelsTemplate: "{{ range .network.device }}{{ .name }}{{ end }}"
                  matchFeatures: [{feature: network.device, matchExpressions: {name: eth1}}]
                - name: dynamic-missing
                  labels: {kept: "true", gone: "@network.device.speed"}
                - name: fine
                  labelsTemplate: "{{ range .network.device }}nic-{{ .name }}={{ .speed }}{{ end }}"
                  matchFeatures: [{feature: network.device, matchExpressions: {name: eth1}}]
                """;
        RuleEngine.Result r = RuleEngine.run(rules(yaml), f);
        assertEquals(Map.of("kept", "true", "nic-eth1", "25000"), labels(r));
        assertEquals(List.of(
                "rule 'speed' skipped: not a number 'unknown'",
                "rule 'bad-template-feature' skipped: template failed: at <.pci.device>: map has no entry for key "
                        + "\"pci\" (it has [network])",
                "rule 'bad-template-field' skipped: template failed: at <.mtu>: map has no entry for key \"mtu\" (it "
                        + "has [name, speed])",
                "rule 'line-without-equals' skipped: template line 'eth1' has no '=' (format must be <key>=<value>)",
                "rule 'dynamic-missing': label gone left out: @network.device.speed names no attribute"), r.warnings());
    }

    @Test
    void evidenceNamesTheRuleAndWhatMatched() throws Exception {
        Features f = Features.builder("kernel").flags("loadedmodule", List.of("dummy"))
                .attributes("config", Map.of("X86", "y")).origin("config", "/boot/config-6.8.0").build();
        RuleEngine.Result r = RuleEngine.run(rules(SAMPLE_RULE), f);
        assertEquals("rule 'my sample rule': kernel.loadedmodule {dummy Exists} matched 1 element, "
                + "kernel.config {X86 In [y]} matched 1 element from /boot/config-6.8.0", r.outputs().get(0).evidence());
    }

    @Test
    void staticRulesComeFirstAndFeedLaterRules() throws Exception {
        Features f = Features.builder("pci").instance("device", inst("class", "0207", "vendor", "15b3")).build();
        List<Rule> all = new ArrayList<>(StaticRules.RULES);
        all.addAll(rules("""
                - name: uses-static
                  labels: {ib-node: "true"}
                  matchFeatures: [{feature: rule.matched, matchExpressions: {rdma.capable: {op: IsTrue}}}]
                """));
        RuleEngine.Result r = RuleEngine.run(all, f);
        assertTrue(r.warnings().isEmpty(), r.warnings().toString());
        assertEquals(Map.of("rdma.capable", "true", "ib-node", "true"), labels(r));
    }

    // --- what a rule's outputs wait for -------------------------------------------------------------------------

    private static final String CHAIN = """
            - name: nothing
              labels: {always: "yes"}
            - name: on pci, copies from local
              labels: {copy: "@local.feature.asset-tag"}
              matchAny:
                - matchFeatures: [{feature: PCI.device, matchExpressions: {vendor: {op: In, value: ["10de"]}}}]
            - name: on kernel
              vars: {k: "1"}
              matchFeatures: [{feature: kernel.version, matchExpressions: {major: {op: Exists}}}]
            - name: on earlier rules
              labels: {after: "yes"}
              matchFeatures: [{feature: rule.matched, matchExpressions: {k: {op: Exists}}}]
            - name: on cpu
              labels: {last: "yes"}
              matchFeatures: [{feature: cpu.model, matchExpressions: {vendor_id: {op: Exists}}}]
            - name: copies a result
              labels: {copied: "@rule.matched.last"}
            """;

    /**
     * A rule's outputs wait for the sources of the features its terms read (matchAny included, names in any case) and
     * its values copy, for every earlier rule's when it reads rule.matched (transitively: the inputs of those rules
     * include theirs), and for nothing without terms.
     */
    @Test
    void eachRuleWaitsForTheSourcesItReadsAndTheRulesBeforeIt() throws Exception {
        List<java.util.Set<String>> inputs = RuleEngine.inputs(rules(CHAIN), true);
        assertEquals(List.of(java.util.Set.of(), java.util.Set.of("local", "pci"), java.util.Set.of("kernel"),
                java.util.Set.of("kernel", "local", "pci"), java.util.Set.of("cpu"),
                java.util.Set.of("cpu", "kernel", "local", "pci")), inputs);
    }

    /** nfd-master resolves a copy from rule.matched after the last rule: that output waits for every rule's sources. */
    @Test
    void asMasterACopyOfARuleResultWaitsForEveryRule() throws Exception {
        List<Rule> rules = rules("""
                - name: copies a later result
                  labels: {copied: "@rule.matched.k"}
                - name: on kernel
                  vars: {k: "1"}
                  matchFeatures: [{feature: kernel.version, matchExpressions: {major: {op: Exists}}}]
                - name: on system
                  labels: {os: "yes"}
                  matchFeatures: [{feature: system.osrelease, matchExpressions: {ID: {op: Exists}}}]
                """);
        assertEquals(List.of(java.util.Set.of("kernel", "system"), java.util.Set.of("kernel"), java.util.Set.of("system")),
                RuleEngine.inputs(rules, false));
        assertEquals(List.of(java.util.Set.of(), java.util.Set.of("kernel"), java.util.Set.of("system")),
                RuleEngine.inputs(rules, true), "a worker resolves it when the rule runs: nothing before it");
        Features f = Features.builder("kernel").attributes("version", Map.of("major", "6")).build();
        RuleEngine.Result r = RuleEngine.runAsMaster(rules, f);
        assertEquals(java.util.Set.of("kernel", "system"), r.outputs().get(0).inputs(), "each output carries its rule's");
        assertEquals(Map.of("copied", "1"), r.outputs().get(0).labels());
    }
}
