package io.nodelabeller.label;

import io.nodelabeller.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The label docs every labeler gives ({@link Labeler#docs()}): well formed, examples valid labels of their own pattern. */
class LabelDocTest {

    static List<LabelDoc> allDocs() {
        return Catalog.docs().values().stream().flatMap(List::stream).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allDocs")
    void exampleIsAValidLabelWithAKeyOfItsOwnPattern(LabelDoc doc) {
        assertNull(Catalog.labelValidity(io.nodelabeller.config.Config.DEFAULT.core()).problem(doc.exampleKey(), doc.exampleValue()),
                doc.example());
        assertTrue(doc.matches(doc.exampleKey()), doc.example() + " is not a key of " + doc.key());
        assertFalse(doc.source().isBlank(), "source");
        assertFalse(doc.from().isBlank(), "from");
        assertFalse(doc.description().isBlank(), "description");
    }

    @Test
    void everyLabelerInTheCatalogDocumentsItsLabels() {
        assertEquals(Catalog.labelerNames(), List.copyOf(Catalog.docs().keySet()));
        Catalog.docs().forEach((labeler, docs) -> assertFalse(docs.isEmpty(), labeler + " documents no label"));
    }

    /**
     * The naming rule of docs/development.md: a built-in source's label in feature.node.kubernetes.io begins with the
     * source's name and "-" or "." (NFD's shape: {@code pci-…}, {@code memory-numa}), labels NFD does not have
     * included, so that a key says which source made it. Rules' and feature files' keys are their authors'.
     */
    @Test
    void builtInKeysBeginWithTheirSourcesName() {
        List<String> off = new java.util.ArrayList<>();
        Catalog.docs().forEach((labeler, docs) -> {
            if (labeler.equals("custom") || labeler.equals("local")) {
                return;
            }
            for (LabelDoc d : docs) {
                String prefix = "feature.node.kubernetes.io/";
                if (d.key().startsWith(prefix) && !d.key().startsWith(prefix + labeler + "-")
                        && !d.key().startsWith(prefix + labeler + ".")) {
                    off.add(d.key() + " (" + labeler + ")");
                }
            }
        });
        assertEquals(List.of(), off);
    }

    @Test
    void eachKeyPatternIsDocumentedOncePerSource() {
        Set<String> seen = new HashSet<>();
        for (LabelDoc d : allDocs()) {
            assertTrue(seen.add(d.source() + " " + d.key()), "documented twice: " + d.key() + " (" + d.source() + ")");
        }
    }

    @Test
    void placeholdersMatchAnyRunOfKeyCharactersAndNothingElseIsAWildcard() {
        LabelDoc pci = LabelDoc.key("feature.node.kubernetes.io/pci-<fields>.present").source("pci")
                .from("sysfs")
                .example("feature.node.kubernetes.io/pci-0302_10de.present", "true")
                .means("a device");
        assertTrue(pci.matches("feature.node.kubernetes.io/pci-0300_1a03.present"));
        assertFalse(pci.matches("feature.node.kubernetes.io/pci-0302_10de.sriov.capable"));
        assertFalse(pci.matches("feature.node.kubernetes.io/pci-.present"), "a placeholder stands for at least one character");
        assertFalse(pci.matches("feature.node.kubernetes.io/usb-ef_046b_ffb0.present"));

        LabelDoc mig = LabelDoc.key("nvidia.com/mig-<profile>.count").source("nvidia")
                .from("NVML")
                .example("nvidia.com/mig-1g.10gb.count", "7")
                .means("MIG devices");
        assertTrue(mig.matches("nvidia.com/mig-1c.3g.40gb.count"));
        assertFalse(mig.matches("nvidia.com/mig-1g.10gb.count=7"));

        LabelDoc prefixed = LabelDoc.key("<domain>/<key>").source("local")
                .from("features.d")
                .example("example.com/rack", "r1")
                .means("any");
        assertTrue(prefixed.matches("example.com/rack"));
        assertFalse(prefixed.matches("rack"));

        LabelDoc fixed = LabelDoc.key("nvidia.com/gpu.count").source("nvidia")
                .from("NVML").example("8")
                .means("GPUs");
        assertEquals("nvidia.com/gpu.count=8", fixed.example());
        assertTrue(fixed.matches("nvidia.com/gpu.count"));
        assertFalse(fixed.matches("nvidia.com/gpuXcount"), "dots are literal");
        assertFalse(fixed.matches("nvidia.com/gpu.count.extra"));
    }

    @Test
    void aFixedKeyCannotHaveAPlaceholder() {
        assertThrows(IllegalArgumentException.class,
                () -> LabelDoc.key("nvidia.com/mig-<profile>.count").source("nvidia")
                        .from("NVML").example("1")
                        .means("x"));
        assertThrows(IllegalArgumentException.class, () -> LabelDoc.key("nvidia.com/gpu.count").from("NVML").example("8").means("GPUs"),
                "a doc without its source");
    }
}
