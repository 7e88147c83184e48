package io.nodelabeller.publish;

import java.time.Duration;
import java.time.Instant;

/** The clock and the sleeper of the retry loop; tests give a fake one so no test waits for real backoff. */
public interface Timing {

    /** Monotonic time, for deadlines. */
    long nanoTime();

    /** Wall-clock time, to read a {@code Retry-After} given as an HTTP date. */
    Instant now();

    void sleep(Duration d) throws InterruptedException;

    Timing SYSTEM = new Timing() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Instant now() {
            return Instant.now();
        }

        @Override
        public void sleep(Duration d) throws InterruptedException {
            Thread.sleep(d.toMillis());
        }
    };
}
