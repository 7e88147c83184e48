package io.nodelabeller.label;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Quantity syntax and amounts as apimachinery's resource.Quantity reads them (pkg/api/resource/quantity.go). */
class QuantitiesTest {

    @Test
    void wholeAmounts() {
        assertEquals(BigInteger.valueOf(123), Quantities.whole("123"));
        assertEquals(BigInteger.valueOf(1000), Quantities.whole("1k"));
        assertEquals(BigInteger.valueOf(1000), Quantities.whole("1e3"));
        assertEquals(BigInteger.valueOf(1000), Quantities.whole("1E3"));
        assertEquals(BigInteger.valueOf(1L << 30), Quantities.whole("1Gi"));
        assertEquals(BigInteger.ONE.shiftLeft(60), Quantities.whole("1Ei"));
        assertEquals(BigInteger.TEN.pow(18), Quantities.whole("1E"));
        assertEquals(BigInteger.ONE, Quantities.whole("1000m"));
        assertEquals(BigInteger.valueOf(1500), Quantities.whole("1.5k"));
        assertEquals(BigInteger.ZERO, Quantities.whole("0"));
    }

    @Test
    void notWholeOrNotAQuantity() {
        for (String bad : new String[] {"500m", "1.5", "-1", "", "k", "1kb", "1 k", "one", "1e", "0x10", "1e400"}) {
            assertNull(Quantities.whole(bad), bad);
        }
    }
}
