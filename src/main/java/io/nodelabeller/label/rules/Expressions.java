package io.nodelabeller.label.rules;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.nodelabeller.config.rules.MatchExpression;
import io.nodelabeller.config.rules.Op;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * NFD's operator semantics (pkg/apis/nfd/nodefeaturerule/expression.go, {@code evaluateMatchExpression}): a missing
 * element satisfies only DoesNotExist (and Any), so NotIn does not match a missing key; Gt, Ge, Lt, Le, GtLt and GeLe
 * compare integers, or versions with {@code type: version}; InRegexp is an unanchored search with Go's regexp
 * semantics (RE2). An expression is checked as NFD checks it, when it is evaluated: Any, Exists and DoesNotExist take
 * no value whatever the element; every other operator's values (their number, integers, versions, regular
 * expressions, the type) only when the element is there. A wrong one fails the rule ({@link RuleException}) for that
 * evaluation only. The worker config's expressions were checked when read, so for them these checks never fail.
 */
public final class Expressions {

    /** The expression types NFD knows: "" (integers) and {@value #VERSION}. */
    static final String VERSION = "version";

    private static final ConcurrentHashMap<String, Pattern> REGEXPS = new ConcurrentHashMap<>();

    private Expressions() {
    }

    /** Evaluates {@code e} on an element's value; {@code value} null means the element is missing. */
    public static boolean matches(MatchExpression e, String value) throws RuleException {
        switch (e.op()) {
            case Any:
                noValues(e);
                return true;
            case Exists:
                noValues(e);
                return value != null;
            case DoesNotExist:
                noValues(e);
                return value == null;
            default:
                break;
        }
        if (value == null) {
            return false;
        }
        List<String> v = e.values();
        return switch (e.op()) {
            case In -> someValues(e) && v.contains(value);
            case NotIn -> someValues(e) && !v.contains(value);
            case InRegexp -> {
                someValues(e);
                List<Pattern> patterns = new java.util.ArrayList<>();
                for (String re : v) {
                    patterns.add(regexp(re, e));
                }
                yield patterns.stream().anyMatch(p -> p.matcher(value).find());
            }
            case Gt, Ge, Lt, Le -> {
                if (v.size() != 1) {
                    throw invalid(e, "exactly one value");
                }
                int c = compare(e, value, v.get(0));
                yield switch (e.op()) {
                    case Gt -> c > 0;
                    case Ge -> c >= 0;
                    case Lt -> c < 0;
                    default -> c <= 0;
                };
            }
            case GtLt, GeLe -> {
                if (v.size() != 2) {
                    throw invalid(e, "exactly two values");
                }
                int low = compare(e, value, v.get(0));
                int high = compare(e, value, v.get(1));
                if (!VERSION.equals(e.type()) && Long.parseLong(v.get(0)) >= Long.parseLong(v.get(1))) {
                    throw invalid(e, "the first value less than the second");
                }
                yield e.op() == Op.GtLt ? low > 0 && high < 0 : low >= 0 && high <= 0;
            }
            case IsTrue -> {
                noValues(e);
                yield value.equals("true");
            }
            case IsFalse -> {
                noValues(e);
                yield value.equals("false");
            }
            default -> throw new IllegalStateException(e.op().name());
        };
    }

    /**
     * Evaluates {@code e} on a flag, which has a name but no value: only Any, Exists and DoesNotExist can hold, and
     * only their own check applies (NFD evaluates a flag as an element without a value).
     */
    public static boolean matchesFlag(MatchExpression e, boolean present) throws RuleException {
        return switch (e.op()) {
            case Any, Exists, DoesNotExist -> matches(e, present ? "" : null);
            default -> false;
        };
    }

    /** {@code value} against {@code bound}: as integers (Go's strconv.Atoi), or as versions with type version. */
    private static int compare(MatchExpression e, String value, String bound) throws RuleException {
        switch (e.type()) {
            case "" -> {
                long l = integer(value, "not a number '" + value + "'");
                long r = integer(bound, "not a number '" + bound + "' in " + e);
                return Long.compare(l, r);
            }
            case VERSION -> {
                Version l = Version.parse(value);
                if (l == null) {
                    throw new RuleException("not a version '" + value + "'");
                }
                Version r = Version.parse(bound);
                if (r == null) {
                    throw new RuleException("not a version '" + bound + "' in " + e);
                }
                return l.compareTo(r);
            }
            default -> throw new RuleException("invalid expression " + e + ": type may only be '" + VERSION + "' for op "
                    + e.op() + ", got '" + e.type() + "'");
        }
    }

    private static void noValues(MatchExpression e) throws RuleException {
        if (!e.values().isEmpty()) {
            throw invalid(e, "no value");
        }
    }

    private static boolean someValues(MatchExpression e) throws RuleException {
        if (e.values().isEmpty()) {
            throw invalid(e, "at least one value");
        }
        return true;
    }

    private static RuleException invalid(MatchExpression e, String expected) {
        return new RuleException("invalid expression " + e + ": op " + e.op() + " takes " + expected);
    }

    private static Pattern regexp(String re, MatchExpression e) throws RuleException {
        Pattern p = REGEXPS.get(re);
        if (p == null) {
            try {
                p = Pattern.compile(re);
            } catch (PatternSyntaxException ex) {
                throw new RuleException("invalid expression " + e + ": '" + re + "' is not a regular expression (Go RE2): "
                        + ex.getMessage());
            }
            REGEXPS.putIfAbsent(re, p);
        }
        return p;
    }

    /** Go's strconv.Atoi on a 64-bit platform: an optional sign and decimal digits within int64. */
    private static long integer(String value, String problem) throws RuleException {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException ex) {
            throw new RuleException(problem);
        }
    }
}
