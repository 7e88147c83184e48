package io.nodelabeller.label.rules;

import io.nodelabeller.config.Config;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.Options;
import io.nodelabeller.feature.Features;
import io.nodelabeller.label.LabelValidity;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.label.Labelling;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The custom labeler inside the labelling stage: NFD's static rdma rules, and rule output validated like any label. */
class CustomLabelerTest {

    private static LabelSet label(List<io.nodelabeller.config.rules.Rule> rules, Features f) {
        return new Labelling(Map.of(CustomLabeler.NAME, new CustomLabeler(rules)), LabelValidity.defaults(), null).label(f);
    }

    private static Features pci(String... vendors) {
        Features.Builder b = Features.builder("pci").instances("device");
        for (String v : vendors) {
            b.instance("device", Map.of("class", "0200", "vendor", v, "device", "1017", "subsystem_vendor", v,
                    "subsystem_device", "0020"));
        }
        return b.build();
    }

    private static Features modules(String... names) {
        return Features.builder("kernel").flags("loadedmodule", List.of(names)).build();
    }

    @Test
    void rdmaCapableWhenAMellanoxDeviceIsPresent() {
        assertEquals(Map.of("feature.node.kubernetes.io/rdma.capable", "true"),
                label(List.of(), pci("8086", "15b3")).asMap());
        assertEquals(Map.of(), label(List.of(), pci("8086", "10de")).asMap());
        assertEquals(Map.of(), label(List.of(), pci()).asMap());
    }

    @Test
    void rdmaAvailableNeedsBothModules() {
        assertEquals(Map.of("feature.node.kubernetes.io/rdma.available", "true"),
                label(List.of(), modules("mlx5_core", "ib_uverbs", "rdma_ucm")).asMap());
        assertEquals(Map.of(), label(List.of(), modules("ib_uverbs")).asMap());
        assertEquals(Map.of(), label(List.of(), modules("rdma_ucm")).asMap());
        assertEquals(Map.of(), label(List.of(), Features.empty()).asMap());
    }

    @Test
    void bothWithEvidence() {
        LabelSet set = label(List.of(), pci("15b3").merge(modules("ib_uverbs", "rdma_ucm")));
        assertEquals(Map.of("feature.node.kubernetes.io/rdma.capable", "true",
                "feature.node.kubernetes.io/rdma.available", "true"), set.asMap());
        assertEquals("custom", set.labels().get("feature.node.kubernetes.io/rdma.capable").source());
        assertEquals("rule 'nfd built-in rdma.capable': pci.device {vendor In [15b3]} matched 1 element",
                set.labels().get("feature.node.kubernetes.io/rdma.capable").evidence());
    }

    @Test
    void ruleOutputIsValidatedLikeAnyLabel() throws Exception {
        Config c = Catalog.configLoader().parse("c.yaml", """
                sources:
                  custom:
                    - name: mixed
                      labels:
                        plain: "true"
                        vendor.example.com/gpu: "yes"
                        kubernetes.io/hostname: "evil"
                        node-role.kubernetes.io/control-plane: ""
                        bad value: "x"
                        long: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                        spaced: "two words"
                    - name: override-static
                      labels: {rdma.capable: "false"}
                """);
        LabelSet set = new Labelling(Map.of(CustomLabeler.NAME, new CustomLabeler(c.sources().custom())), LabelValidity.defaults(), null)
                .label(pci("15b3"));
        assertEquals(Map.of("feature.node.kubernetes.io/plain", "true", "vendor.example.com/gpu", "yes",
                "feature.node.kubernetes.io/rdma.capable", "false"), set.asMap());
        assertEquals(5, set.dropped().size(), set.dropped().toString());
    }

    @Test
    void labelersCatalogHasCustomThenLocalLast() throws Exception {
        List<String> names = Catalog.labelerNames();
        assertEquals("local", names.get(names.size() - 1));
        assertEquals("custom", names.get(names.size() - 2));
        Config c = Catalog.configLoader().parse("c.yaml", "sources:\n  custom:\n    - {name: r, labels: {from-rule: \"1\"}}\n");
        Labelling l = Catalog.labelling(c, Options.defaults());
        assertTrue(l.label(Features.empty()).asMap().containsKey("feature.node.kubernetes.io/from-rule"));
        Config noCustom = Catalog.configLoader().parse("c.yaml", "core: {labelSources: [all, -custom]}\nsources:\n  custom:\n"
                + "    - {name: r, labels: {from-rule: \"1\"}}\n");
        assertEquals(Map.of(), Catalog.labelling(noCustom, Options.defaults()).label(Features.empty()).asMap());
    }

    @Test
    void aLocalFileLabelWinsOverARuleLabel() throws Exception {
        Config c = Catalog.configLoader().parse("c.yaml", "sources:\n  custom:\n    - {name: r, labels: {pool: rule}}\n");
        Features local = Features.builder("local").attributes("label", Map.of("pool", "file")).build();
        assertEquals(Map.of("feature.node.kubernetes.io/pool", "file"),
                Catalog.labelling(c, Options.defaults()).label(local).asMap());
    }
}
