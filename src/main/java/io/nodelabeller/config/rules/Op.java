package io.nodelabeller.config.rules;

/**
 * The operators of NFD's rule language. {@link #Any} is the worker config's empty op (it matches anything). Ge, Le and
 * GeLe (NFD v0.18) are nfd-master's, for NodeFeatureRule objects only: NFD's worker config has none of them
 * (source/custom/api/types.go), so its reader refuses them.
 */
public enum Op {
    In, NotIn, InRegexp, Exists, DoesNotExist, Gt, Ge, Lt, Le, GtLt, GeLe, IsTrue, IsFalse, Any;

    /** Whether only NodeFeatureRule objects know this operator. */
    public boolean objectsOnly() {
        return this == Ge || this == Le || this == GeLe;
    }

    /** Names as written in a rule, for messages ({@link #Any} has none: it is the empty op). */
    public static String names() {
        return names(true);
    }

    /** As {@link #names()}; without the objects' own operators when {@code objects} is false. */
    public static String names(boolean objects) {
        StringBuilder sb = new StringBuilder();
        for (Op op : values()) {
            if (op != Any && (objects || !op.objectsOnly())) {
                sb.append(sb.length() == 0 ? "" : ", ").append(op.name());
            }
        }
        return sb.toString();
    }
}
