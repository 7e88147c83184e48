package io.nodelabeller.config;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.source.pci.PciConfig;
import io.nodelabeller.source.kernel.KernelConfig;
import io.nodelabeller.config.yaml.YamlNode;
import io.nodelabeller.config.yaml.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest {

    @Test
    void emptyDocumentGivesDefaults() throws Exception {
        assertEquals(Config.DEFAULT, Catalog.configLoader().parse("c.yaml", ""));
        assertEquals(Config.DEFAULT, Catalog.configLoader().load(null));
    }

    @Test
    void readsNfdKeys() throws Exception {
        Config c = Catalog.configLoader().parse("c.yaml", """
                core:
                  sleepInterval: 1m30s
                  labelWhiteList: "^cpu-"
                sources:
                  pci:
                    deviceClassWhitelist: ["0200", "03"]
                    deviceLabelFields: [class, vendor, device]
                  kernel:
                    configOpts: [PREEMPT]
                """);
        assertEquals(Duration.ofSeconds(90), c.core().sleepInterval());
        assertEquals("^cpu-", c.core().labelWhiteList().pattern());
        assertEquals(List.of("0200", "03"), c.sources().get(PciConfig.SECTION).deviceClassWhitelist());
        assertEquals(List.of("class", "vendor", "device"), c.sources().get(PciConfig.SECTION).deviceLabelFields());
        assertEquals(List.of("PREEMPT"), c.sources().get(KernelConfig.SECTION).configOpts());
        assertNull(Config.DEFAULT.core().labelWhiteList());
    }

    @Test
    void everyProblemIsListedWithFileAndKeyPath() {
        ConfigException e = assertThrows(ConfigException.class, () -> Catalog.configLoader().parse("bad.yaml", """
                core:
                  sleepInterval: 60
                  labelWhiteList: "(["
                  bogus: 1
                sources:
                  pci:
                    deviceClassWhitelist: "03"
                unknownTop: {}
                """));
        List<String> p = e.problems();
        assertEquals(5, p.size(), p.toString());
        assertTrue(p.contains("bad.yaml: core.bogus: unknown key (expected one of: sleepInterval, featureSources, "
                + "labelSources, sources, labelWhiteList, extraLabelNs, denyLabelNs, noPublish, ownerRefs, noOwnerRefs, "
                + "noPublishFeatures, klog, customRulesDir, sourceTimeout)"), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("bad.yaml: core.sleepInterval: expected a duration")), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("bad.yaml: core.labelWhiteList: expected a regular expression")), p.toString());
        assertTrue(p.contains("bad.yaml: sources.pci.deviceClassWhitelist: expected a list of strings, got a string"), p.toString());
        assertTrue(p.stream().anyMatch(s -> s.startsWith("bad.yaml: unknownTop: unknown key")), p.toString());
    }

    /** sources.nvidia: vgpu a boolean, no other key; an error names file and key like every other. */
    @Test
    void theNvidiaSectionIsCheckedLikeTheOthers() throws Exception {
        var section = io.nodelabeller.source.nvidia.NvidiaConfig.SECTION;
        assertEquals(false, Catalog.configLoader().parse("c.yaml", "").sources().get(section).vgpu());
        assertEquals(true, Catalog.configLoader().parse("c.yaml", "sources:\n  nvidia:\n    vgpu: true\n")
                .sources().get(section).vgpu());
        ConfigException e = assertThrows(ConfigException.class, () -> Catalog.configLoader().parse("bad.yaml",
                "sources:\n  nvidia:\n    vgpu: \"yes\"\n    vGPU: true\n"));
        assertEquals(2, e.problems().size(), e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.equals("bad.yaml: sources.nvidia.vgpu: expected true or false, got a string 'yes'")),
                e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.startsWith("bad.yaml: sources.nvidia.vGPU: unknown key")),
                e.problems().toString());
    }

    @Test
    void emptyWhitelistMeansEveryLabelAndExampleConfigIsValid() throws Exception {
        assertNull(Catalog.configLoader().parse("c.yaml", "core:\n  labelWhiteList: \"\"\n").core().labelWhiteList());
        Catalog.configLoader().load(java.nio.file.Path.of("config/example.yaml"));
    }

    @Test
    void syntaxErrorNamesLine() {
        ConfigException e = assertThrows(ConfigException.class, () -> Catalog.configLoader().parse("x.yaml", "core:\n  a: [\n"));
        assertTrue(e.getMessage().startsWith("x.yaml: not valid YAML at line"), e.getMessage());
    }

    @Test
    void durations() {
        assertEquals(Duration.ofMillis(1500), YamlNode.parseDuration("1.5s"));
        assertEquals(Duration.ofMinutes(61), YamlNode.parseDuration("1h1m"));
        assertEquals(Duration.ZERO, YamlNode.parseDuration("0"));
        assertNull(YamlNode.parseDuration("60"));
        assertNull(YamlNode.parseDuration("1x"));
        assertNull(YamlNode.parseDuration("s"));
    }

    /** YAML keys are unique: a duplicate is an error naming the line, not a setting silently replaced. */
    @Test
    void aDuplicateKeyIsAnError() {
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> Catalog.configLoader().parse("dup.yaml", "core:\n  sleepInterval: 60s\n  sleepInterval: 30s\n"));
        assertEquals(List.of("dup.yaml: not valid YAML at line 3, column 16: Duplicate field 'sleepInterval'"), e.problems());
    }
}
