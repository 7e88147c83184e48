package io.nodelabeller.template;

import java.time.Instant;
import java.time.InstantSource;
import java.util.function.LongSupplier;

/**
 * The clock Sprig's date functions read ({@code now}, and {@code ago}, {@code date} or {@code durationRound} where
 * they measure from now): the wall clock, and a monotonic reading in nanoseconds since the agent started, which Go's
 * {@code time.Now} carries and {@code Time.String} prints as {@code m=+1.5}.
 */
record TemplateClock(InstantSource wall, LongSupplier monotonic) {

    private static final long START = System.nanoTime();

    static final TemplateClock SYSTEM = new TemplateClock(InstantSource.system(), () -> System.nanoTime() - START);

    /** time.Now: the wall clock in {@code Local}, with a monotonic reading. */
    GoTime now() {
        Instant i = wall.instant();
        return new GoTime(i.getEpochSecond(), i.getNano(), GoZone.LOCAL, monotonic.getAsLong());
    }
}
