package io.nodelabeller.label.rules;

import io.nodelabeller.catalog.Catalog;
import io.nodelabeller.config.Config;
import io.nodelabeller.config.yaml.ConfigException;
import io.nodelabeller.config.ConfigLoader;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every pattern NFD takes from configuration is a Go regexp (package regexp, RE2 syntax: Go's regexp/syntax
 * documentation), and node-labeller evaluates them with RE2/J. Each vector here is one where java.util.regex would
 * silently give another answer or accept a pattern Go refuses, so a migrated rule keeps its meaning or fails loudly.
 */
class GoRegexpTest {

    @ParameterizedTest(name = "InRegexp {0} on ''{1}'' = {2}")
    @CsvSource(delimiter = ';', value = {
            "^[[:digit:]]{4}$;0302;true",          // POSIX classes inside brackets (java.util.regex: a plain class of ':', 'd', 'i', ...)
            "^[[:alpha:]]+-[[:alnum:]]+$;cpu-AVX2;true",
            "^[[:xdigit:]]{4}$;10de;true",
            "^(?P<vendor>10de)$;10de;true",        // Go's named group syntax (java.util.regex refuses (?P<)
            "[a-z&&[^b]];&];true",                 // no class intersection in RE2: '&', '[' and '^' are members
            "[a-z&&[^b]];x;false",
            "(?i)^nvidia;NVIDIA-A100;true",
            "^0302$|^0300$;0300;true",
    })
    void patternsMeanWhatTheyMeanInGo(String pattern, String value, boolean expected) throws Exception {
        assertEquals(expected, Expressions.matches(new MatchExpression(Op.InRegexp, List.of(pattern)), value));
    }

    @ParameterizedTest(name = "{0} is refused")
    @CsvSource(delimiter = ';', value = {
            "foo(?=bar);invalid or unsupported Perl syntax: `(?=`",   // lookahead
            "(a)\\1;invalid escape sequence: `\\1`",                   // backreference
            "a\\Z;invalid escape sequence: `\\Z`",                     // Java's end-of-input-but-newline
            "a*+;invalid nested repetition operator: `*+`",            // possessive quantifier
    })
    void patternsGoRefusesAreConfigErrorsNamingFileKeyAndPattern(String pattern, String why) {
        ConfigException rule = assertThrows(ConfigException.class, () -> Catalog.configLoader().parse("c.yaml", """
                sources:
                  custom:
                    - name: r
                      labels: {x: "1"}
                      matchFeatures:
                        - feature: pci.device
                          matchExpressions:
                            class: {op: InRegexp, value: ['%s']}
                """.formatted(pattern)));
        assertEquals(List.of("c.yaml: sources.custom[0].matchFeatures[0].matchExpressions.class.value: expected valid regular "
                + "expressions (Go RE2 syntax) for op InRegexp, '" + pattern + "' is not: error parsing regexp: " + why), rule.problems());

        ConfigException whitelist = assertThrows(ConfigException.class,
                () -> Catalog.configLoader().parse("c.yaml", "core:\n  labelWhiteList: '" + pattern + "'\n"));
        assertEquals(1, whitelist.problems().size());
        assertTrue(whitelist.problems().get(0).startsWith("c.yaml: core.labelWhiteList: expected a regular expression (Go RE2 syntax), got '"
                + pattern + "' (error parsing regexp: " + why), whitelist.problems().toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "^[[:alpha:]]+-version;kernel-version.full;true",
            "^[[:alpha:]]+-version;pci-0302_10de.present;false",
    })
    void theLabelWhiteListIsAGoRegexpToo(String pattern, String name, boolean kept) throws Exception {
        Config c = Catalog.configLoader().parse("c.yaml", "core:\n  labelWhiteList: '" + pattern + "'\n");
        assertEquals(kept, c.core().labelWhiteList().matcher(name).find());
    }

    /**
     * NFD's own InRegexp vectors, from pkg/apis/nfd/nodefeaturerule/expression_test.go (TestMatch, TestMatchValues):
     * an unanchored search, any value may match, a missing element never does.
     */
    @ParameterizedTest(name = "NFD: InRegexp {0} on ''{1}'' = {2}")
    @CsvSource(delimiter = ';', value = {
            "val-[0-9]$;val-1;true",
            "val-[0-9]$;val-12;false",
            "val-[0-9]$,al-[1-9];val-12;true",
            "1,[0-8];9;false",
            "1,[0-8];2;true",
    })
    void nfdMatchVectors(String patterns, String value, boolean expected) throws Exception {
        assertEquals(expected, Expressions.matches(new MatchExpression(Op.InRegexp, List.of(patterns.split(","))), value));
        assertEquals(false, Expressions.matches(new MatchExpression(Op.InRegexp, List.of(patterns.split(","))), null),
                "a missing element never matches");
    }

    /** NFD's validation vectors (TestCreateMatchExpression): at least one value, each a valid RE2 pattern. */
    @ParameterizedTest(name = "NFD: InRegexp {0} is valid: {1}")
    @CsvSource(delimiter = ';', value = {
            "[];false",
            "['1'];true",
            "['()', '2', '3'];true",
            "['('];false",
    })
    void nfdValidationVectors(String values, boolean valid) {
        String yaml = """
                sources:
                  custom:
                    - name: r
                      labels: {x: "1"}
                      matchFeatures: [{feature: pci.device, matchExpressions: {class: {op: InRegexp, value: %s}}}]
                """.formatted(values);
        boolean accepted;
        try {
            Catalog.configLoader().parse("c.yaml", yaml);
            accepted = true;
        } catch (ConfigException e) {
            accepted = false;
        }
        assertEquals(valid, accepted, values);
    }
}
