package io.nodelabeller.label.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NFD's own tables for nfd-master's expression semantics, run through {@link Expressions}: every case of
 * {@code TestEvaluateMatchExpression} (results and errors), {@code TestEvaluateMatchExpressionKeys} (a flag: an element
 * without a value) and {@code TestEvaluateMatchExpressionValues} (attributes, with Ge/Le/GeLe and {@code type: version})
 * of NFD v0.19.0's pkg/apis/nfd/nodefeaturerule/expression_test.go, kept as data in
 * {@code src/test/resources/nfd/expression-tables-v0.19.0.json} (converted from the Go tables, one object a case).
 * An expression here is unchecked, as a NodeFeatureRule object's is until it is evaluated.
 */
class NfdExpressionTablesTest {

    record Case(String kind, String name, JsonNode json) {
        @Override
        public String toString() {
            return kind + " " + name;
        }
    }

    static List<Case> cases() throws Exception {
        try (InputStream in = NfdExpressionTablesTest.class.getResourceAsStream("/nfd/expression-tables-v0.19.0.json")) {
            JsonNode root = new ObjectMapper().readTree(in);
            List<Case> out = new ArrayList<>();
            root.get("cases").forEach(c -> out.add(new Case(c.get("kind").asText(), c.get("name").asText(), c)));
            return out;
        }
    }

    /** The tables whole: as many cases of each kind as the Go file has. */
    @Test
    void everyCaseOfTheTablesIsHere() throws Exception {
        Map<String, Integer> kinds = new TreeMap<>();
        cases().forEach(c -> kinds.merge(c.kind(), 1, Integer::sum));
        assertEquals(Map.of("evaluate", 36, "evaluate-error", 24, "keys", 16, "values", 133), kinds);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void asNfdMasterEvaluatesIt(Case c) throws Exception {
        JsonNode j = c.json();
        Op op;
        try {
            op = Op.valueOf(j.get("op").asText());
        } catch (IllegalArgumentException e) {
            // an operator NFD does not know: the CRD's enum refuses such an object, and so does the reader
            assertEquals("invalid-op-err", c.name());
            return;
        }
        List<String> values = new ArrayList<>();
        j.get("values").forEach(v -> values.add(v.asText()));
        MatchExpression e = new MatchExpression(op, values, j.get("type").asText());
        boolean wantError = j.get("err").asBoolean(false);
        Evaluation run = switch (c.kind()) {
            case "evaluate", "evaluate-error" -> {
                boolean valid = j.get("valid").asBoolean();
                JsonNode input = j.get("input");
                // valid with no input: an element that is there without a value, as a flag is
                yield !valid ? () -> Expressions.matches(e, null)
                        : input.isNull() ? () -> Expressions.matchesFlag(e, true)
                        : () -> Expressions.matches(e, input.asText());
            }
            case "keys" -> {
                boolean present = j.get("input").isObject() && j.get("input").has(j.get("key").asText());
                yield () -> Expressions.matchesFlag(e, present);
            }
            case "values" -> {
                JsonNode input = j.get("input");
                JsonNode v = input.isObject() ? input.get(j.get("key").asText()) : null;
                yield () -> Expressions.matches(e, v == null ? null : v.asText());
            }
            default -> throw new IllegalStateException(c.kind());
        };
        if (wantError) {
            RuleException ex = assertThrows(RuleException.class, run::get, c.toString());
            assertTrue(!ex.getMessage().isEmpty());
        } else {
            JsonNode result = j.get("result");
            assertEquals(result.asBoolean(), run.get(), c.toString());
        }
    }

    @FunctionalInterface
    interface Evaluation {
        boolean get() throws RuleException;
    }

    /** What users write: "kernel ≥ 5.15", "driver ≥ 550", where NFD's semver parse drops the flavour. */
    @Test
    void versionsAreReadAsNfdReadsThem() throws Exception {
        MatchExpression kernel = new MatchExpression(Op.Ge, List.of("5.15"), "version");
        assertTrue(Expressions.matches(kernel, "5.15.0-91-generic"));
        assertTrue(Expressions.matches(kernel, "6.8.0-45-generic"));
        assertTrue(!Expressions.matches(kernel, "5.4.0-182-generic"));
        MatchExpression driver = new MatchExpression(Op.GeLe, List.of("550", "560.99"), "version");
        assertTrue(Expressions.matches(driver, "550.54.15"));
        assertTrue(Expressions.matches(driver, "v560.35"));
        assertTrue(!Expressions.matches(driver, "580.159.04"));
        assertTrue(Expressions.matches(new MatchExpression(Op.Lt, List.of("1.2.3+build.7"), "version"), "1.2.2"));
        for (String notOne : List.of("5.15.0.1", "", "V1.2", "1.2.3-01", "18446744073709551616", "x")) {
            assertThrows(RuleException.class, () -> Expressions.matches(kernel, notOne), notOne);
        }
        assertEquals(0, Version.parse("18446744073709551615").compareTo(new Version(-1, 0, 0)), "uint64 range");
        // an unknown type fails a comparison, and is ignored by the other operators, as NFD does
        assertThrows(RuleException.class, () -> Expressions.matches(new MatchExpression(Op.Gt, List.of("1"), "semver"), "2"));
        assertTrue(Expressions.matches(new MatchExpression(Op.In, List.of("2"), "semver"), "2"));
    }
}
