package io.nodelabeller.daemon;

import org.junit.jupiter.api.Test;
import org.quartz.Trigger;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CycleSchedulerTest {

    /** Counts concurrent runs; the first run blocks until released. */
    static final class SlowTask implements CycleScheduler.Body {
        final List<Boolean> scheduled = new java.util.concurrent.CopyOnWriteArrayList<>();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        final CountDownLatch firstEntered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Semaphore done = new Semaphore(0);
        final AtomicBoolean interrupted = new AtomicBoolean();

        @Override
        public void run(boolean isScheduled) {
            scheduled.add(isScheduled);
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                firstEntered.countDown();
                release.await();
            } catch (InterruptedException e) {
                interrupted.set(true);
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
                done.release();
            }
        }
    }

    @Test
    void cyclesNeverOverlapEvenWithASpareThreadAndFiredByHand() throws Exception {
        SlowTask task = new SlowTask();
        try (CycleScheduler s = CycleScheduler.start(task, Duration.ofHours(1), 2)) {
            try {
                assertTrue(task.firstEntered.await(60, TimeUnit.SECONDS), "first cycle starts at once");
                s.triggerNow();
                s.triggerNow();
                List<Trigger.TriggerState> states = s.triggerStates();
                // the running cycle's own trigger plus the two fired by hand, all held back
                assertTrue(states.size() >= 2 && states.stream().allMatch(st -> st == Trigger.TriggerState.BLOCKED),
                        "cycles fired by hand wait for the running one: " + states);
                assertEquals(1, task.running.get());
            } finally {
                task.release.countDown(); // never leave close() waiting on a blocked cycle
            }
            assertTrue(task.done.tryAcquire(3, 60, TimeUnit.SECONDS), "the waiting cycles ran afterwards");
        }
        assertEquals(1, task.maxRunning.get());
        assertEquals(List.of(true, false, false), task.scheduled, "the first cycle is scheduled, those fired by hand are not");
    }

    @Test
    void eachCycleSchedulesTheNext() throws Exception {
        Semaphore runs = new Semaphore(0);
        List<Boolean> flags = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (CycleScheduler s = CycleScheduler.start(scheduled -> {
            flags.add(scheduled);
            runs.release();
        }, Duration.ofMillis(20))) {
            assertTrue(runs.tryAcquire(4, 60, TimeUnit.SECONDS), "cycles keep coming");
        }
        assertTrue(flags.stream().allMatch(f -> f), "each one scheduled: " + flags);
    }

    @Test
    void aThrowingCycleDoesNotStopTheSchedule() throws Exception {
        Semaphore runs = new Semaphore(0);
        try (CycleScheduler s = CycleScheduler.start(scheduled -> {
            runs.release();
            throw new IllegalStateException("bug");
        }, Duration.ofMillis(20))) {
            assertTrue(runs.tryAcquire(3, 60, TimeUnit.SECONDS));
        }
    }

    @Test
    void closeWaitsForTheRunningCycle() throws Exception {
        SlowTask task = new SlowTask();
        CycleScheduler s = CycleScheduler.start(task, Duration.ofHours(1));
        assertTrue(task.firstEntered.await(60, TimeUnit.SECONDS));
        AtomicBoolean finishedWhenClosed = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            s.close();
            finishedWhenClosed.set(task.running.get() == 0 && task.done.availablePermits() == 1);
        });
        closer.start();
        assertTrue(Fakes.awaitParked(closer), "close() returned while the cycle was still running");
        task.release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(closer.isAlive());
        assertTrue(finishedWhenClosed.get(), "close returned only after the cycle had finished");
        assertFalse(task.interrupted.get(), "the cycle was not interrupted");
    }

    @Test
    void jitterIsSmallAndBounded() {
        for (int i = 0; i < 1000; i++) {
            Duration j = CycleScheduler.jitter(Duration.ofSeconds(60));
            assertTrue(!j.isNegative() && j.compareTo(Duration.ofSeconds(6)) <= 0, j.toString());
            Duration big = CycleScheduler.jitter(Duration.ofHours(1));
            assertTrue(big.compareTo(Duration.ofSeconds(10)) <= 0, big.toString());
        }
        assertEquals(Duration.ZERO, CycleScheduler.jitter(Duration.ZERO));
    }
}
