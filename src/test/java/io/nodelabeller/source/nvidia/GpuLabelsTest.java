package io.nodelabeller.source.nvidia;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.label.LabelDoc;
import io.nodelabeller.label.LabelValidity;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The GPU label declarations: per-model keys that fit every model, twins that cannot silently vanish. */
class GpuLabelsTest {

    private static final LabelValidity VALIDITY = Catalog.labelValidity(Config.DEFAULT.core());

    /**
     * Every per-model twin is a valid key for every model name NVML can give (up to NVML_DEVICE_NAME_V2_BUFFER_SIZE,
     * 96 bytes with the NUL), of every length and of the characters a key keeps: none is left out by the validity
     * check.
     */
    @Test
    void everyTwinKeyFitsForEveryModelName() {
        List<String> names = new ArrayList<>();
        for (int n = 1; n <= 95; n++) {
            names.add("A".repeat(n));
            names.add(("NVIDIA RTX-PRO_6000.x ").repeat(5).substring(0, n));
        }
        assertFalse(GpuLabels.twins().isEmpty());
        int longest = 0;
        for (String name : names) {
            String model = Names.modelKey(name);
            if (model.isEmpty()) {
                continue;
            }
            longest = Math.max(longest, model.length());
            for (String label : GpuLabels.twins().keySet()) {
                String key = Out.PREFIX + GpuLabels.twinKey(label, model);
                assertNull(VALIDITY.problem(key, "1"), key);
            }
        }
        assertEquals(Names.MODEL_KEY_MAX, longest, "the longest model part was tried");
    }

    /** Users' selectors hold per-model keys: the longest model part and the shortening of longer names stay as shipped. */
    @Test
    void existingPerModelKeysAreNotRenamed() {
        assertEquals(39, Names.MODEL_KEY_MAX);
        String name = "NVIDIA RTX PRO 6000 Blackwell Server Edition with a very long marketing suffix A";
        String key = Names.modelKey(name);
        assertEquals(Names.sanitise(name).substring(0, 29) + "-" + sha256(Names.sanitise(name)).substring(0, 8), key);
        assertEquals("gpu.model." + key + ".compute.major", GpuLabels.twinKey("gpu.compute.major", key));
        assertEquals("gpu.model.Tesla-V100-SXM2-32GB.count", GpuLabels.twinKey("gpu.count", Names.modelKey("Tesla V100-SXM2-32GB")));
    }

    private static String sha256(String s) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** A twin whose field would not fit for the longest model part fails the declarations, naming the way out. */
    @Test
    void aTwinThatDoesNotFitFailsTheDeclarations() {
        GpuLabels.GpuLabel linkGen = new GpuLabels.GpuLabel(ResourceLabeler.class, "gpu.pcie.max-link-gen", Out.SOURCE,
                "nvmlDeviceGetMaxPcieLinkGeneration", null, "4", "PCIe generation.", false, null);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> GpuLabels.check(List.of(linkGen.withTwin("pcie.max-link-gen", 4, "PCIe generation."))));
        assertTrue(e.getMessage().contains("'pcie.max-link-gen', has 17 characters") && e.getMessage().contains("at most 13"),
                e.getMessage());
        GpuLabels.check(List.of(linkGen.withTwin("pcie.gen-max", 4, "PCIe generation."))); // 12 characters: fits
        assertThrows(IllegalStateException.class, () -> GpuLabels.check(List.of(linkGen, linkGen)), "declared twice");
    }

    /** The labels GFD does not have hold gpu.models and every twin, and nothing GFD has is among them. */
    @Test
    void beyondGfdHoldsTheModelsAndTheTwins() {
        List<String> keys = GpuLabels.beyondGfd().stream().map(LabelDoc::key).toList();
        assertTrue(keys.contains("nvidia.com/gpu.models"), keys.toString());
        GpuLabels.twins().values().forEach(f -> assertTrue(keys.contains("nvidia.com/gpu.model.<model>." + f), f));
        assertTrue(GpuLabels.isBeyondGfd("nvidia.com/gpu.model.Tesla-T4.count") && GpuLabels.isBeyondGfd("gpu.models"));
        for (String gfd : List.of("gpu.count", "gpu.product", "mig-1g.10gb.count", "gpu.model", "cuda.driver.major")) {
            assertFalse(GpuLabels.isBeyondGfd(gfd), gfd);
        }
    }
}
