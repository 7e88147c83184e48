package io.nodelabeller.config.rules;

/** The match operators of NFD's custom rules (no Ge/Le/GeLe and no version type: NFD's worker lacks them too). */
public enum Op {
    In, NotIn, InRegexp, Exists, DoesNotExist, Gt, Lt, GtLt, IsTrue, IsFalse;

    /** Names as written in a rule, for messages. */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (Op op : values()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(op.name());
        }
        return sb.toString();
    }
}
