package io.nodelabeller.config.rules;

import java.util.List;

/**
 * One {@code {op, value}} of a rule, already checked: the number of values fits the operator, Gt/Lt/GtLt
 * values are integers (GtLt ascending) and InRegexp values compile.
 */
public record MatchExpression(Op op, List<String> values) {

    public MatchExpression {
        values = List.copyOf(values);
    }

    public static MatchExpression of(Op op, String... values) {
        return new MatchExpression(op, List.of(values));
    }

    @Override
    public String toString() {
        String name = op == Op.Any ? "Any (op \"\")" : op.name();
        return values.isEmpty() ? name : name + " " + values;
    }
}
