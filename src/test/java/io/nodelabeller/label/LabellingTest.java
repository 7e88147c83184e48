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

    /** An output dropped every cycle is one warning when it starts, one line when it ends: logs are alerted on. */
    @Test
    void aDroppedOutputIsLoggedWhenItStartsAndWhenItEndsNotEveryCycle() {
        try (io.nodelabeller.testing.LogCapture log = io.nodelabeller.testing.LogCapture.of(Labelling.class)) {
            List<Label> produced = new java.util.ArrayList<>(List.of(Label.of("kubernetes.io/hostname", "x", "local", "")));
            Labelling l = new Labelling(Map.of("local", f -> List.copyOf(produced)), LabelValidity.defaults(), null);
            for (int cycle = 0; cycle < 3; cycle++) {
                l.label(Features.empty());
            }
            produced.clear();
            l.label(Features.empty());
            l.label(Features.empty());
            List<String> lines = log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.INFO))
                    .map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
            assertEquals(List.of("WARN dropping kubernetes.io/hostname=x from local: namespace 'kubernetes.io' is not allowed",
                    "INFO every output is valid again"), lines);
        }
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
