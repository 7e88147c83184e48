package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** NFD's operator semantics, one row per case: op, values ('|'-separated), input ('<missing>' = no such element), result. */
class ExpressionsTest {

    private static MatchExpression expr(Op op, String values) {
        List<String> v = values == null ? List.of() : Arrays.asList(values.split("\\|", -1));
        return new MatchExpression(op, v);
    }

    private static String input(String raw) {
        return "<missing>".equals(raw) ? null : raw == null ? "" : raw;
    }

    @ParameterizedTest(name = "{0} {1} on ''{2}'' -> {3}")
    @CsvSource(delimiter = ';', value = {
            "In;1;<missing>;false",
            "In;1;2;false",
            "In;1|2|3;2;true",
            "In;15b3;15B3;false",            // exact, case-sensitive
            "NotIn;2;<missing>;false",       // a missing element does not satisfy NotIn
            "NotIn;1;2;true",
            "NotIn;1|2|3;2;false",
            "InRegexp;val-[0-9]$;<missing>;false",
            "InRegexp;val-[0-9]$;val-1;true",
            "InRegexp;val-[0-9]$;val-12;false",
            "InRegexp;val-[0-9]$|al-[1-9];val-12;true",  // unanchored: 'al-1' is found inside
            "InRegexp;^03;0300;true",
            "InRegexp;^03;1003;false",
            "Exists;;<missing>;false",
            "Exists;;;true",
            "DoesNotExist;;<missing>;true",
            "DoesNotExist;;x;false",
            "Gt;2;<missing>;false",
            "Gt;2;2;false",
            "Gt;2;3;true",
            "Gt;-10;-3;true",
            "Gt;2;+3;true",
            "Lt;2;1;true",
            "Lt;2;2;false",
            "Lt;-10;-3;false",
            "GtLt;1|10;<missing>;false",
            "GtLt;1|10;1;false",
            "GtLt;1|10;10;false",
            "GtLt;1|10;2;true",
            "IsTrue;;<missing>;false",
            "IsTrue;;true;true",
            "IsTrue;;True;false",
            "IsTrue;;false;false",
            "IsFalse;;false;true",
            "IsFalse;;true;false",
            "Any;;<missing>;true",           // the worker's MatchAny: anything, present or not
            "Any;;x;true",
    })
    void operators(Op op, String values, String in, boolean expected) throws Exception {
        assertEquals(expected, Expressions.matches(expr(op, values), input(in)));
    }

    @ParameterizedTest(name = "{0} {1} on ''{2}'' fails the rule")
    @CsvSource(delimiter = ';', value = {
            "Gt;2;str",
            "Gt;2;3a",
            "Lt;2;1.0",
            "GtLt;1|10;1.0",
            "Lt;2;''",
    })
    void nonIntegerInputIsAnError(Op op, String values, String in) {
        RuleException e = assertThrows(RuleException.class, () -> Expressions.matches(expr(op, values), input(in)));
        assertEquals("not a number '" + input(in) + "'", e.getMessage());
    }

    @ParameterizedTest(name = "{0} on flag present={1} -> {2}")
    @CsvSource(delimiter = ';', value = {
            "Exists;true;true",
            "Exists;false;false",
            "DoesNotExist;false;true",
            "DoesNotExist;true;false",
            "In;true;false",          // flags have no value: every other operator is false
            "NotIn;true;false",
            "InRegexp;true;false",
            "Gt;true;false",
            "IsTrue;true;false",
            "Any;true;true",
            "Any;false;true",
    })
    void flags(Op op, boolean present, boolean expected) throws RuleException {
        assertEquals(expected, Expressions.matchesFlag(new MatchExpression(op, List.of()), present));
    }
}
