package io.nodelabeller.publish;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A clock that moves only when the code under test sleeps; records every sleep. */
final class FakeTiming implements Timing {

    final List<Duration> sleeps = new ArrayList<>();
    private long nanos = 1_000_000_000L;
    private final Instant epoch = Instant.parse("2026-11-22T10:00:00Z");

    @Override
    public synchronized long nanoTime() {
        return nanos;
    }

    @Override
    public synchronized Instant now() {
        return epoch.plusNanos(nanos);
    }

    @Override
    public synchronized void sleep(Duration d) {
        sleeps.add(d);
        nanos += d.toNanos();
    }

    synchronized Duration slept() {
        return sleeps.stream().reduce(Duration.ZERO, Duration::plus);
    }
}
