package io.nodelabeller.label;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;

/**
 * Kubernetes resource quantities (apimachinery's resource.Quantity syntax: a number, then a binary suffix Ki…Ei, a
 * decimal suffix m, k, M…E, or an exponent e3) as extended resources use them: whole, non-negative amounts. The API
 * server writes quantities in canonical form ("1000" comes back as "1k"), so values are compared as numbers.
 */
public final class Quantities {

    private static final Pattern QUANTITY =
            Pattern.compile("^([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[mkMGTPE]|[eE][+-]?[0-9]+)?$");
    private static final Map<String, BigDecimal> SUFFIX = Map.ofEntries(
            Map.entry("Ki", BigDecimal.valueOf(1L << 10)), Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
            Map.entry("Gi", BigDecimal.valueOf(1L << 30)), Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
            Map.entry("Pi", BigDecimal.valueOf(1L << 50)), Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
            Map.entry("m", new BigDecimal("0.001")), Map.entry("k", BigDecimal.TEN.pow(3)),
            Map.entry("M", BigDecimal.TEN.pow(6)), Map.entry("G", BigDecimal.TEN.pow(9)),
            Map.entry("T", BigDecimal.TEN.pow(12)), Map.entry("P", BigDecimal.TEN.pow(15)),
            Map.entry("E", BigDecimal.TEN.pow(18)));

    private Quantities() {
    }

    /** The amount {@code text} stands for when it is a whole, non-negative quantity; null otherwise. */
    public static BigInteger whole(String text) {
        if (text == null || text.length() > 64) {
            return null;
        }
        Matcher m = QUANTITY.matcher(text);
        if (!m.matches()) {
            return null;
        }
        BigDecimal amount = new BigDecimal(m.group(1));
        String suffix = m.group(2);
        if (suffix != null) {
            if (!SUFFIX.containsKey(suffix)) { // an exponent: e3, E-2
                int exponent = Integer.parseInt(suffix.substring(1));
                if (Math.abs(exponent) > 30) {
                    return null;
                }
                amount = amount.scaleByPowerOfTen(exponent);
            } else {
                amount = amount.multiply(SUFFIX.get(suffix));
            }
        }
        if (amount.signum() < 0) {
            return null;
        }
        try {
            return amount.stripTrailingZeros().toBigIntegerExact();
        } catch (ArithmeticException fractional) {
            return null;
        }
    }
}
