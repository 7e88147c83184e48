package io.nodelabeller.publish;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackoffTest {

    static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");

    @Test
    void retryAfterIsReadAsSecondsOrAsAnHttpDate() {
        assertEquals(Duration.ofSeconds(3), Backoff.parseRetryAfter("3", NOW));
        assertEquals(Duration.ofSeconds(3), Backoff.parseRetryAfter(" 3 ", NOW));
        assertEquals(Duration.ofSeconds(90), Backoff.parseRetryAfter("Sun, 22 Nov 2026 10:01:30 GMT", NOW));
        assertEquals(Duration.ZERO, Backoff.parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", NOW));
        assertNull(Backoff.parseRetryAfter(null, NOW));
        assertNull(Backoff.parseRetryAfter("", NOW));
        assertNull(Backoff.parseRetryAfter("-5", NOW));
        assertNull(Backoff.parseRetryAfter("soon", NOW));
    }

    @Test
    void delaysDoubleWithJitterUpToTheCapAndNeverUndercutRetryAfter() {
        Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1600), new Random(1));
        for (int i = 0; i < 2000; i++) {
            int attempt = i % 12;
            long d = Math.min(100L << attempt, 1600L);
            long got = b.delay(attempt, null).toMillis();
            assertTrue(got >= d / 2 && got <= d, "attempt " + attempt + ": " + got);
            assertTrue(b.delay(attempt, Duration.ofSeconds(5)).compareTo(Duration.ofSeconds(5)) >= 0);
        }
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), new Random()));
    }
}
