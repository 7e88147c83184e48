package io.nodelabeller.config.rules;

/**
 * The match operators of NFD's custom rules (no Ge/Le/GeLe and no version type: NFD's worker lacks them too).
 * {@link #Any} is the worker's {@code MatchAny}: written {@code op: ""} or as an expression without {@code op}
 * ({@code {}}), it holds for anything, present or not (source/custom/api/types.go; nodefeaturerule/expression.go).
 */
public enum Op {
    In, NotIn, InRegexp, Exists, DoesNotExist, Gt, Lt, GtLt, IsTrue, IsFalse, Any;

    /** Names as written in a rule, for messages ({@link #Any} has none: it is the empty op). */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (Op op : values()) {
            if (op != Any) {
                sb.append(sb.length() == 0 ? "" : ", ").append(op.name());
            }
        }
        return sb.toString();
    }
}
