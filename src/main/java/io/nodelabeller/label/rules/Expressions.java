package io.nodelabeller.label.rules;

import io.nodelabeller.config.rules.MatchExpression;

import com.google.re2j.Pattern;

/**
 * NFD's operator semantics (nodefeaturerule/expression.go): a missing element satisfies only DoesNotExist (and
 * the worker's Any, which holds for anything),
 * so NotIn does not match a missing key; Gt/Lt/GtLt compare integers and fail the rule when the input is not
 * one; InRegexp is an unanchored search with Go's regexp semantics (RE2, as NFD). Values were checked when the config was read.
 */
public final class Expressions {

    private Expressions() {
    }

    /** Evaluates {@code e} on an element's value; {@code value} null means the element is missing. */
    public static boolean matches(MatchExpression e, String value) throws RuleException {
        switch (e.op()) {
            case Any:
                return true;
            case Exists:
                return value != null;
            case DoesNotExist:
                return value == null;
            default:
                break;
        }
        if (value == null) {
            return false;
        }
        return switch (e.op()) {
            case In -> e.values().contains(value);
            case NotIn -> !e.values().contains(value);
            case InRegexp -> e.values().stream().anyMatch(re -> Pattern.compile(re).matcher(value).find());
            case Gt -> integer(value) > Long.parseLong(e.values().get(0));
            case Lt -> integer(value) < Long.parseLong(e.values().get(0));
            case GtLt -> {
                long v = integer(value);
                yield v > Long.parseLong(e.values().get(0)) && v < Long.parseLong(e.values().get(1));
            }
            case IsTrue -> value.equals("true");
            case IsFalse -> value.equals("false");
            default -> throw new IllegalStateException(e.op().name());
        };
    }

    /** Evaluates {@code e} on a flag, which has a name but no value: only Exists and DoesNotExist can hold. */
    public static boolean matchesFlag(MatchExpression e, boolean present) {
        return switch (e.op()) {
            case Any -> true;
            case Exists -> present;
            case DoesNotExist -> !present;
            default -> false;
        };
    }

    private static long integer(String value) throws RuleException {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException ex) {
            throw new RuleException("not a number '" + value + "'");
        }
    }
}
