package io.nodelabeller.cli;

import io.nodelabeller.daemon.ConfigWatch;
import io.nodelabeller.daemon.Daemon;
import org.quartz.SchedulerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The body of {@code run}, apart from {@link RunCommand}: picocli loads every command class at start-up, for print
 * too, and a {@code catch (SchedulerException)} there would load Quartz. On SIGTERM (a shutdown hook) it lets a
 * running cycle finish its publish, stops, and exits 0; the JVM would otherwise report 143 for a clean, expected
 * stop.
 */
final class RunDaemon {

    private static final Logger LOG = LoggerFactory.getLogger(RunDaemon.class);

    private RunDaemon() {
    }

    /** The fallback when file events do not arrive: a config change is still seen within this. */
    static final Duration WATCH_POLL = Duration.ofSeconds(2);

    static int run(CommandLine.Model.CommandSpec spec, CommonOptions common, CycleSetup p) throws InterruptedException {
        Daemon daemon;
        int port = p.config.daemon().port();
        if (p.config.daemon().runtimeMetrics()) {
            p.metrics.withRuntimeMetrics();
        }
        LiveConfig live = new LiveConfig(common, p, java.time.Clock.systemUTC());
        try {
            daemon = Daemon.start(p.cycle, p.metrics, p.config.core().sleepInterval(), new InetSocketAddress(port),
                    live::beforeCycle);
        } catch (IOException e) {
            spec.commandLine().getErr().println("node-labeller run: cannot listen on port " + port
                    + " (daemon.port): " + e.getMessage());
            return Main.FAILURE;
        } catch (SchedulerException e) {
            spec.commandLine().getErr().println("node-labeller run: cannot start the scheduler: " + e.getMessage());
            return Main.FAILURE;
        }
        live.attach(daemon);
        p.onRuleObjectsChange.set(daemon::cycleNow);
        ConfigWatch watch = ConfigWatch.start(live::watched, live, WATCH_POLL);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (daemon.isClosed()) {
                return; // stopping for another reason: keep that exit code
            }
            LOG.info("SIGTERM: finishing the running cycle, then exiting");
            watch.close();
            daemon.close();
            p.close();
            Runtime.getRuntime().halt(Main.OK);
        }, "node-labeller-shutdown"));
        daemon.awaitStopped();
        watch.close();
        if (daemon.fatalError() != null) {
            spec.commandLine().getErr().println("node-labeller run: " + daemon.fatalError());
            return Main.FAILURE;
        }
        return Main.OK;
    }
}
