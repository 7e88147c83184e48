package io.nodelabeller.deploy;

import dev.cel.common.ast.CelExpr;
import dev.cel.runtime.CelEvaluationListener;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runtime cost of one CEL evaluation, counted as kube-apiserver counts it: cel-go's runtime cost tracker
 * (cel-go {@code interpreter/runtimecost.go}) with Kubernetes' estimator for its libraries (kubernetes
 * {@code staging/src/k8s.io/apiserver/pkg/cel/library/cost.go}, {@code CallCost}). kube-apiserver stops an expression
 * at {@link #PER_CALL_LIMIT} ({@code celconfig.PerCallLimit}) and a request's policy at {@link #RUNTIME_BUDGET}
 * ({@code RuntimeCELCostBudget}); with failurePolicy Fail, either denies the write.
 *
 * <p>Fed by cel-java's evaluation listener, which reports every evaluated node (each iteration of a comprehension
 * again) with its value: a constant costs 0, an identifier or a field selection 1 (a presence test 0: Kubernetes
 * sets {@code PresenceTestHasCost(false)}), a list literal 10, a map literal 30; a call costs what cel-go charges for
 * its overload, from the sizes of its arguments: {@code x in list} the list's size, {@code x in map} 1, a comparison
 * a tenth of the shorter operand, string concatenation a tenth of both, {@code contains} a tenth of each side
 * multiplied, {@code matches} a tenth of the string times a quarter of the pattern, {@code startsWith}/{@code endsWith}
 * a tenth of the string, {@code split}/{@code replace} a fifth of the string, {@code join} a fifth of the result,
 * {@code lowerAscii}/{@code trim}/{@code substring}/string {@code indexOf} a tenth of the string, list
 * {@code indexOf} the list's size; logical operators and the conditional nothing; every other call 1 (list
 * concatenation included: cel-go's lists concatenate lazily, and a comprehension's accumulator grows in place).
 */
final class CelCost implements CelEvaluationListener {

    static final long PER_CALL_LIMIT = 1_000_000;
    static final long RUNTIME_BUDGET = 10_000_000;

    private final Map<Long, Object> values = new HashMap<>();
    private long cost;

    long cost() {
        return cost;
    }

    @Override
    public void callback(CelExpr expr, Object value) {
        values.put(expr.id(), value);
        cost += switch (expr.exprKind().getKind()) {
            case CONSTANT, COMPREHENSION, NOT_SET -> 0;
            case IDENT -> 1;
            case SELECT -> expr.select().testOnly() ? 0 : 1;
            case LIST -> 10;
            case MAP -> 30;
            case STRUCT -> 40;
            case CALL -> call(expr.call(), value);
        };
    }

    private long call(CelExpr.CelCall call, Object result) {
        Object target = call.target().map(t -> values.get(t.id())).orElse(null);
        List<CelExpr> args = call.args();
        Object a0 = args.isEmpty() ? null : values.get(args.get(0).id());
        Object a1 = args.size() < 2 ? null : values.get(args.get(1).id());
        return switch (call.function()) {
            case "_&&_", "_||_", "_?_:_" -> 0;
            case "@in" -> a1 instanceof Collection<?> c ? c.size() : 1;
            case "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_" -> tenth(Math.min(size(a0), size(a1)));
            case "_+_" -> a0 instanceof String ? tenth(size(a0) + size(a1)) : 1;
            case "contains" -> tenth(size(target)) * tenth(size(a0));
            case "startsWith", "endsWith" -> tenth(size(target));
            case "matches" -> tenth(1 + size(target)) * (long) Math.ceil(size(a0) * 0.25);
            case "split", "replace" -> tenth(2 * size(target));
            case "join" -> tenth(2 * size(result));
            case "lowerAscii", "upperAscii", "trim", "substring" -> tenth(size(target));
            case "indexOf", "lastIndexOf" -> target instanceof String ? tenth(size(target)) : size(target);
            default -> 1;
        };
    }

    private static long tenth(long size) {
        return (long) Math.ceil(size * 0.1);
    }

    /** cel-go's actualSize: a string's length, a list's or map's size, 1 for anything else. */
    private static long size(Object v) {
        if (v instanceof String s) {
            return s.length();
        }
        if (v instanceof Collection<?> c) {
            return c.size();
        }
        if (v instanceof Map<?, ?> m) {
            return m.size();
        }
        return 1;
    }
}
