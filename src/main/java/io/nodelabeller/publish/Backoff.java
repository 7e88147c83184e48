package io.nodelabeller.publish;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Random;

/**
 * Exponential backoff with jitter: attempt n (0-based) waits a random time in [d/2, d] where
 * d = min(initial · 2ⁿ, max). A server's {@code Retry-After} is a floor: we never come back sooner than it
 * asked (429 from the API server's priority-and-fairness sends one).
 */
public final class Backoff {

    private final Duration initial;
    private final Duration max;
    private final Random random;

    public Backoff(Duration initial, Duration max, Random random) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + ", " + max);
        }
        this.initial = initial;
        this.max = max;
        this.random = random;
    }

    /** The wait before retry number {@code attempt} (0 = first retry), at least {@code retryAfter} when given. */
    public Duration delay(int attempt, Duration retryAfter) {
        long ceiling = max.toMillis();
        long d = initial.toMillis();
        for (int i = 0; i < attempt && d < ceiling; i++) {
            d *= 2;
        }
        d = Math.min(d, ceiling);
        long jittered = d / 2 + (long) (random.nextDouble() * (d - d / 2 + 1));
        Duration wait = Duration.ofMillis(Math.min(jittered, d));
        return retryAfter != null && retryAfter.compareTo(wait) > 0 ? retryAfter : wait;
    }

    /**
     * Reads a {@code Retry-After} header: delta-seconds or an HTTP date (RFC 9110 §10.2.3). Null when absent or
     * unreadable; never negative.
     */
    public static Duration parseRetryAfter(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String h = header.trim();
        try {
            long seconds = Long.parseLong(h);
            return seconds < 0 ? null : Duration.ofSeconds(Math.min(seconds, 86_400));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(h, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                Duration d = Duration.between(now, at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (DateTimeParseException notDate) {
                return null;
            }
        }
    }
}
