package io.nodelabeller.daemon;

import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the cycle with Quartz: one durable job in a RAM job store, one worker thread, marked
 * {@link DisallowConcurrentExecution} so that cycles never overlap even when fired by hand. The first
 * cycle starts at once; each cycle, when done, schedules the next one {@code interval} plus a random jitter
 * later, so that the DaemonSet's pods drift apart instead of patching their Nodes in step, and a slow cycle
 * never causes a burst of catch-up runs. An interval of zero runs the cycle once. A cycle is told whether it is one
 * of these scheduled ones or one fired by hand ({@link #triggerNow}: a reloaded config, a changed file).
 */
public final class CycleScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CycleScheduler.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final Duration MAX_JITTER = Duration.ofSeconds(10);

    private final Scheduler scheduler;
    private final Body cycle;
    private volatile Duration interval;
    private final JobKey job = JobKey.jobKey("cycle");
    private final TriggerKey next = TriggerKey.triggerKey("next");
    private volatile boolean stopping;

    /** What one cycle runs; {@code scheduled} is false for a cycle fired by hand. */
    public interface Body {
        void run(boolean scheduled);
    }

    private CycleScheduler(Scheduler scheduler, Body cycle, Duration interval) {
        this.scheduler = scheduler;
        this.cycle = cycle;
        this.interval = interval;
    }

    /** Starts running {@code cycle} now and then every {@code interval} (plus jitter). */
    public static CycleScheduler start(Body cycle, Duration interval) throws SchedulerException {
        return start(cycle, interval, 1);
    }

    /** {@code threads} > 1 only in tests, to show that the job itself refuses to overlap. */
    static CycleScheduler start(Body cycle, Duration interval, int threads) throws SchedulerException {
        Properties p = new Properties();
        // A unique name: Quartz keeps schedulers in a JVM-wide repository by name.
        p.setProperty("org.quartz.scheduler.instanceName", "node-labeller-" + INSTANCES.incrementAndGet());
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.scheduler.makeSchedulerThreadDaemon", "true");
        p.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
        p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
        p.setProperty("org.quartz.threadPool.makeThreadsDaemons", "true");
        p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        CycleScheduler s = new CycleScheduler(scheduler, cycle, interval);
        scheduler.setJobFactory((bundle, sched) -> s.new CycleJob());
        JobDetail detail = JobBuilder.newJob(CycleJob.class).withIdentity(s.job).storeDurably().build();
        scheduler.addJob(detail, false);
        scheduler.scheduleJob(TriggerBuilder.newTrigger().withIdentity(s.next).forJob(s.job).startNow().build());
        scheduler.start();
        return s;
    }

    /** The time between cycles from the next scheduling on (a reloaded {@code core.sleepInterval}). */
    void setInterval(Duration newInterval) {
        this.interval = newInterval;
    }

    /** Fires one extra cycle now; it waits for a running one to finish. */
    void triggerNow() throws SchedulerException {
        scheduler.triggerJob(job);
    }

    /** The states of the job's pending triggers (tests: fired-by-hand cycles wait BLOCKED behind a running one). */
    List<Trigger.TriggerState> triggerStates() throws SchedulerException {
        List<Trigger.TriggerState> out = new ArrayList<>();
        for (Trigger t : scheduler.getTriggersOfJob(job)) {
            out.add(scheduler.getTriggerState(t.getKey()));
        }
        return out;
    }

    /** Random extra delay: up to a tenth of the interval, at most {@link #MAX_JITTER}. */
    static Duration jitter(Duration interval) {
        long bound = Math.min(interval.toMillis() / 10, MAX_JITTER.toMillis());
        return Duration.ofMillis(bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1));
    }

    private void scheduleNext() {
        if (stopping || interval.isZero()) { // zero: discover once (NFD's sleepInterval: 0)
            return;
        }
        Duration delay = interval.plus(jitter(interval));
        Trigger t = TriggerBuilder.newTrigger().withIdentity(next).forJob(job)
                .startAt(new Date(System.currentTimeMillis() + delay.toMillis())).build();
        try {
            // While the job runs from trigger "next", that trigger still exists: replace it (Quartz keeps a
            // trigger rescheduled during its own execution).
            if (scheduler.checkExists(next)) {
                scheduler.rescheduleJob(next, t);
            } else {
                scheduler.scheduleJob(t);
            }
        } catch (SchedulerException e) {
            if (!stopping) {
                LOG.error("could not schedule the next cycle", e);
            }
        }
    }

    /**
     * Stops scheduling and waits for a running cycle (and so an in-flight publish) to finish. Idempotent.
     */
    @Override
    public void close() {
        stopping = true;
        try {
            scheduler.shutdown(true);
        } catch (SchedulerException e) {
            LOG.warn("stopping the scheduler: {}", e.getMessage());
        }
    }

    /** The Quartz job; instances come from the job factory above, bound to this scheduler's cycle. */
    @DisallowConcurrentExecution
    final class CycleJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {
            try {
                cycle.run(next.equals(context.getTrigger().getKey()));
            } catch (RuntimeException e) {
                LOG.error("cycle failed", e);
            } finally {
                scheduleNext();
            }
        }
    }
}
