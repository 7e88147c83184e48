package io.nodelabeller.config.rules;

import java.util.List;

/**
 * One {@code {op, value, type}} of a rule. The worker config's are checked when read (the number of values fits the
 * operator, Gt/Lt/GtLt values are integers, GtLt ascending, InRegexp values compile), as nfd-worker checks them; a
 * NodeFeatureRule object's are checked when evaluated on an element that is there, as nfd-master does.
 *
 * @param type {@code ""}, or {@code version} for the comparisons of NodeFeatureRule objects (any other value fails
 *             such a comparison when evaluated); the worker config has none
 */
public record MatchExpression(Op op, List<String> values, String type) {

    public MatchExpression {
        values = List.copyOf(values);
        type = type == null ? "" : type;
    }

    public MatchExpression(Op op, List<String> values) {
        this(op, values, "");
    }

    public static MatchExpression of(Op op, String... values) {
        return new MatchExpression(op, List.of(values));
    }

    @Override
    public String toString() {
        String name = op == Op.Any ? "Any (op \"\")" : op.name();
        String typed = type.isEmpty() ? name : name + " (type " + type + ")";
        return values.isEmpty() ? typed : typed + " " + values;
    }
}
