package io.nodelabeller.label;

import io.nodelabeller.feature.Features;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import com.google.re2j.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LabellingTest {

    private static Labeler fixed(Label... labels) {
        return f -> List.of(labels);
    }

    @Test
    void prefixesUnprefixedKeysAndDropsInvalidOnes() {
        Labelling l = new Labelling(Map.of("a", fixed(
                Label.of("my-feature", "true", "a", ""),
                Label.of("example.com/ok", "1", "a", ""),
                Label.of("example.com/bad", "has space", "a", ""),
                Label.of("kubernetes.io/hostname", "x", "a", ""))), LabelValidity.defaults(), null);
        LabelSet set = l.label(Features.empty());
        assertEquals(List.of("example.com/ok", "feature.node.kubernetes.io/my-feature"), List.copyOf(set.asMap().keySet()));
        assertEquals(2, set.dropped().size());
    }

    @Test
    void laterLabelerWinsAndFailingLabelerCostsOnlyItsOwnLabels() {
        Labeler broken = f -> {
            throw new IllegalStateException("boom");
        };
        Map<String, Labeler> inOrder = new java.util.LinkedHashMap<>();
        inOrder.put("first", fixed(Label.of("example.com/x", "1", "first", "")));
        inOrder.put("broken", broken);
        inOrder.put("second", fixed(Label.of("example.com/x", "2", "second", "")));
        Labelling l = new Labelling(inOrder, LabelValidity.defaults(), null);
        assertEquals("2", l.label(Features.empty()).asMap().get("example.com/x"));
    }

    @Test
    void whitelistMatchesNameAfterSlash() {
        Labelling l = new Labelling(Map.of("a", fixed(
                Label.of("example.com/cpu-x", "1", "a", ""),
                Label.of("example.com/pci-y", "1", "a", ""))), LabelValidity.defaults(), Pattern.compile("^cpu-"));
        LabelSet set = l.label(Features.empty());
        assertEquals(List.of("example.com/cpu-x"), List.copyOf(set.asMap().keySet()));
        assertEquals("name does not match core.labelWhiteList", set.dropped().get(0).reason());
    }
}
