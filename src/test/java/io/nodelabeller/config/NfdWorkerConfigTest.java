package io.nodelabeller.config;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.source.usb.UsbConfig;
import io.nodelabeller.source.cpu.CpuConfig;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An nfd-worker.conf is accepted as it is: every key of NFD's schema, with NFD's meaning where we have one. */
class NfdWorkerConfigTest {

    /** Every key NFD v0.19's nfd-worker.conf documents, set to a non-default value. */
    private static final String FULL_NFD_WORKER_CONF = """
            core:
              sleepInterval: 30s
              featureSources: [all, -usb]
              labelSources: [kernel]
              sources: [all, -cpu]
              labelWhiteList: "^kernel-"
              noPublish: true
              ownerRefs: [node]
              noOwnerRefs: false
              noPublishFeatures: ["pci.device", "usb.*", "*"]
              klog:
                addDirHeader: false
                alsologtostderr: false
                logBacktraceAt:
                logDir:
                logFile:
                logFileMaxSize: 1800
                logtostderr: true
                skipHeaders: false
                skipLogHeaders: false
                stderrthreshold: 2
                v: 0
                vmodule:
            sources:
              cpu:
                cpuid:
                  attributeBlacklist: [MMX, SSE4.1]
                  attributeWhitelist: []
              kernel:
                kconfigFile: "/path/to/kconfig"
                configOpts: [NO_HZ, X86, DMI]
              pci:
                deviceClassWhitelist: ["0200", "03", "12"]
                deviceLabelFields: [class, vendor, device, subsystem_vendor, subsystem_device]
              usb:
                deviceClassWhitelist: ["0e", "ef", "fe", "ff"]
                deviceLabelFields: [class, vendor, device, serial]
              local: {}
              custom:
                - name: "my custom rule"
                  labels: {"my-custom-feature": "true"}
                  matchFeatures:
                    - feature: kernel.loadedmodule
                      matchExpressions:
                        e1000e: {op: Exists}
                    - feature: pci.device
                      matchExpressions:
                        class: {op: In, value: ["0200"]}
                        vendor: {op: In, value: ["8086"]}
            """;

    @Test
    void theWholeNfdSchemaIsAccepted() throws Exception {
        Config c = Catalog.configLoader().parse("nfd-worker.conf", FULL_NFD_WORKER_CONF);
        CoreConfig core = c.core();
        assertEquals(Duration.ofSeconds(30), core.sleepInterval());
        assertEquals(List.of("all", "-usb"), core.featureSources());
        assertEquals(List.of("all", "-cpu"), core.labelSources(), "the deprecated core.sources wins over labelSources");
        assertTrue(core.noPublish());
        assertEquals(List.of("node"), core.ownerRefs());
        assertEquals(List.of("pci.device", "usb.*", "*"), core.noPublishFeatures());
        assertEquals(List.of("MMX", "SSE4.1"), c.sources().get(CpuConfig.SECTION).attributeBlacklist());
        assertEquals(List.of("class", "vendor", "device", "serial"), c.sources().get(UsbConfig.SECTION).deviceLabelFields());
        assertEquals(1, c.sources().custom().size());
        assertEquals(MatchExpression.of(Op.In, "8086"),
                c.sources().custom().get(0).matchFeatures().get(1).matchExpressions().get("vendor"));
    }

    @Test
    void defaults() {
        CoreConfig core = Config.DEFAULT.core();
        assertFalse(core.noPublish());
        assertEquals(List.of("pod", "ds"), core.ownerRefs());
        assertEquals(List.of(), core.noPublishFeatures());
        assertEquals("/etc/kubernetes/node-feature-discovery/custom.d", core.customRulesDir());
        assertEquals(List.of("all"), core.labelSources());
        assertEquals(List.of(), Config.DEFAULT.sources().custom());
    }

    @Test
    void labelSourcesWithoutTheDeprecatedAlias() throws Exception {
        assertEquals(List.of("kernel"), Catalog.configLoader().parse("c", "core: {labelSources: [kernel]}").core().labelSources());
        assertEquals(List.of("kernel"), Catalog.configLoader().parse("c", "core: {sources: [kernel]}").core().labelSources());
    }

    @Test
    void noOwnerRefsEmptiesOwnerRefs() throws Exception {
        assertEquals(List.of(), Catalog.configLoader().parse("c", "core: {noOwnerRefs: true}").core().ownerRefs());
        assertEquals(List.of(), Catalog.configLoader().parse("c", "core: {ownerRefs: [pod], noOwnerRefs: true}").core().ownerRefs());
        assertEquals(List.of(), Catalog.configLoader().parse("c", "core: {ownerRefs: []}").core().ownerRefs());
    }

    @Test
    void emptyLocalAndNullSectionsAreAccepted() throws Exception {
        assertEquals(Config.DEFAULT.sources(), Catalog.configLoader().parse("c", "sources: {local: {}, custom: []}").sources());
        assertEquals(Config.DEFAULT.sources(), Catalog.configLoader().parse("c", "sources: {local: null, custom: null}").sources());
        assertNull(Catalog.configLoader().parse("c", "core: {klog: {}}").core().labelWhiteList());
        assertNull(Catalog.configLoader().parse("c", "core: {labelWhiteList: \"\"}").core().labelWhiteList(), "\"\" = every label");
        assertEquals(List.of("c: core.labelWhiteList: expected a string, got a list"), assertThrows(ConfigException.class,
                () -> Catalog.configLoader().parse("c", "core: {labelWhiteList: [a]}")).problems());
    }

    @Test
    void everyBadValueIsListed() {
        // check-config's loader: problems first, then what the agent would accept with a warning
        ConfigException e = assertThrows(ConfigException.class, () -> Catalog.configLoader().strict().parse("w.conf", """
                core:
                  noPublish: "yes"
                  ownerRefs: [pod, daemonset, pod]
                  noOwnerRefs: 1
                  noPublishFeatures: ["pci device", "*.x"]
                  sources: kernel
                  klog:
                    v: high
                    logtostderr: "true"
                    stderrthreshold: LOUD
                    logDir: [a]
                    colour: true
                  customRulesDir: {}
                  extraLabelNs: [special.kubernetes.io, "Bad_NS"]
                  denyLabelNs: ["*.example.com", "*example.org", "a..b"]
                sources:
                  local: {path: /x}
                  pci:
                    deviceClassWhitelist: ["03", "zz", "01234"]
                    deviceLabelFields: [class, model]
                  usb:
                    deviceClassWhitelist: ["0e", "100"]
                    deviceLabelFields: []
                  kernel:
                    configOpts: ["NO_HZ", "CONFIG X"]
                  cpu:
                    cpuid:
                      attributeWhitelist: ["AVX 2"]
                  custom: {name: x}
                """));
        assertEquals(List.of(
                "w.conf: core.sources: expected a list of strings, got a string",
                "w.conf: core.ownerRefs[1]: expected one of node, pod, ds, got 'daemonset'",
                "w.conf: core.ownerRefs[2]: 'pod' is listed twice",
                "w.conf: core.noOwnerRefs: expected true or false, got a number '1'",
                "w.conf: core.klog.colour: unknown key (expected one of: addDirHeader, alsologtostderr, logBacktraceAt, "
                        + "logDir, logFile, logFileMaxSize, logtostderr, skipHeaders, skipLogHeaders, stderrthreshold, v, vmodule)",
                "w.conf: core.klog.logtostderr: expected true or false, got a string 'true'",
                "w.conf: core.klog.logDir: expected a string, got a list",
                "w.conf: core.klog.v: expected an integer, got a string 'high'",
                "w.conf: core.klog.stderrthreshold: expected 0..3 or INFO, WARNING, ERROR, FATAL, got 'LOUD'",
                "w.conf: core.extraLabelNs[1]: expected a label namespace such as example.com, or *.example.com for "
                        + "its subdomains, got 'Bad_NS'",
                "w.conf: core.denyLabelNs[2]: expected a label namespace such as example.com, or *.example.com for "
                        + "its subdomains, got 'a..b'",
                "w.conf: core.noPublish: expected true or false, got a string 'yes'",
                "w.conf: core.noPublishFeatures[0]: expected <source>.<feature>, or a prefix ending in * (such as usb.*), "
                        + "got 'pci device'",
                "w.conf: core.noPublishFeatures[1]: expected <source>.<feature>, or a prefix ending in * (such as usb.*), "
                        + "got '*.x'",
                "w.conf: core.customRulesDir: expected a string, got a mapping",
                "w.conf: sources.local.path: unknown key (sources.local has no options)",
                "w.conf: sources.custom: expected a list, got a mapping",
                "w.conf: sources.pci.deviceClassWhitelist[1]: expected a PCI class prefix of 1 to 4 hex digits, got 'zz': "
                        + "kept as NFD keeps it, it can never match",
                "w.conf: sources.pci.deviceClassWhitelist[2]: expected a PCI class prefix of 1 to 4 hex digits, got "
                        + "'01234': kept as NFD keeps it, it can never match",
                "w.conf: sources.pci.deviceLabelFields[1]: unknown field 'model' ignored, as NFD ignores it (known: class, "
                        + "vendor, device, subsystem_vendor, subsystem_device)",
                "w.conf: sources.usb.deviceClassWhitelist[1]: expected a USB class of 1 or 2 hex digits, got '100': kept as "
                        + "NFD keeps it, it can never match",
                "w.conf: sources.usb.deviceLabelFields: no known field: the default class,vendor,device applies, as in NFD",
                "w.conf: sources.kernel.configOpts[1]: expected a kernel config option name such as NO_HZ, got 'CONFIG X': "
                        + "kept as NFD keeps it, it can never match",
                "w.conf: sources.cpu.cpuid.attributeWhitelist[0]: expected a CPUID flag name, got 'AVX 2': kept as NFD "
                        + "keeps it, it can never match"), e.problems());
    }

    @Test
    void theExampleConfigIsValid() throws Exception {
        Config c = Catalog.configLoader().parse("config/example.yaml", java.nio.file.Files.readString(java.nio.file.Path.of("config/example.yaml")));
        assertEquals(List.of("mellanox nic with sr-iov", "nvidia kernel modules"),
                c.sources().custom().stream().map(io.nodelabeller.config.rules.Rule::name).toList());
        assertEquals(Config.DEFAULT.core().ownerRefs(), c.core().ownerRefs());
    }

    @Test
    void ruleChangeSpreadIsADurationFromZeroToTenMinutes() throws Exception {
        assertEquals(java.time.Duration.ofSeconds(30), Config.DEFAULT.publish().ruleChangeSpread());
        assertEquals(java.time.Duration.ZERO, Catalog.configLoader().parse("c", "publish: {ruleChangeSpread: 0}")
                .publish().ruleChangeSpread());
        assertEquals(java.time.Duration.ofMinutes(2), Catalog.configLoader().parse("c", "publish: {ruleChangeSpread: 2m}")
                .publish().ruleChangeSpread());
        assertEquals(List.of("c: publish.ruleChangeSpread: expected a duration from 0 to 10m, got PT-1S"),
                assertThrows(ConfigException.class,
                        () -> Catalog.configLoader().parse("c", "publish: {ruleChangeSpread: -1s}")).problems());
        assertEquals(List.of("c: publish.ruleChangeSpread: expected a duration from 0 to 10m, got PT11M"),
                assertThrows(ConfigException.class,
                        () -> Catalog.configLoader().parse("c", "publish: {ruleChangeSpread: 11m}")).problems());
        // the same bounded reading as core.sourceTimeout's
        assertEquals(List.of("c: core.sourceTimeout: expected a duration from 100ms to 10m, got PT0.05S"),
                assertThrows(ConfigException.class,
                        () -> Catalog.configLoader().parse("c", "core: {sourceTimeout: 50ms}")).problems());
    }

    /** The example says it shows every default: each section it sets equals the built-in default. */
    @Test
    void theExampleConfigShowsEveryDefault() throws Exception {
        Config c = Catalog.configLoader().parse("config/example.yaml", java.nio.file.Files.readString(java.nio.file.Path.of("config/example.yaml")));
        assertEquals(Config.DEFAULT.core(), c.core());
        assertEquals(Config.DEFAULT.sources().withMoreRules(c.sources().custom()), c.sources());
        assertEquals(Config.DEFAULT.publish(), c.publish());
        assertEquals(Config.DEFAULT.daemon(), c.daemon());
        assertEquals(Config.DEFAULT.devicePlugin(), c.devicePlugin());
        // and it shows them: every section and key is written out, not left to its default
        com.fasterxml.jackson.databind.JsonNode tree = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
                .readTree(java.nio.file.Path.of("config/example.yaml").toFile());
        assertEquals(List.of("pci", "usb", "kernel", "cpu", "nvidia", "local", "custom"), fieldNames(tree.get("sources")));
        assertEquals(List.of("sleepInterval", "featureSources", "labelSources", "labelWhiteList", "extraLabelNs",
                "denyLabelNs", "noPublish", "ownerRefs", "noPublishFeatures", "klog", "customRulesDir", "sourceTimeout"),
                fieldNames(tree.get("core")));
        assertEquals(List.of("node", "staleAfter", "nodeFeature", "featuresFile", "nodeFeatureRules", "annotations", "taints",
                "extendedResources", "ruleChangeSpread"), fieldNames(tree.get("publish")));
    }

    private static List<String> fieldNames(com.fasterxml.jackson.databind.JsonNode n) {
        List<String> out = new java.util.ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
