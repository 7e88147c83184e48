package io.nodelabeller.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's log line is what logback's PatternLayout printed with the pattern the agent used before,
 * {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0}: %msg%n} (and the stack trace PatternLayout adds
 * for an exception): every level, loggers with and without a package, messages with arguments, an exception
 * with a cause. Log readers and parsers see no change.
 */
class LogLineTest {

    private static final String OLD_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0}: %msg%n";

    @Test
    void printsWhatThePatternPrinted() {
        LoggerContext context = new LoggerContext();
        PatternLayout pattern = new PatternLayout();
        pattern.setContext(context);
        pattern.setPattern(OLD_PATTERN);
        pattern.start();
        LogLine line = new LogLine();
        line.setContext(context);
        line.start();

        IOException failure = new IOException("disk gone", new IllegalStateException("driver wedged"));
        List<LoggingEvent> events = List.of(
                event(context, "io.nodelabeller.publish.NodePublisher", Level.INFO, "node {}: patched ({} operations)",
                        new Object[] {"gpu-1", 3}, null, 1_764_049_651_789L),
                event(context, "io.nodelabeller.source.Discovery", Level.WARN, "source {}: {}", new Object[] {"pci", "no /sys"},
                        null, 1_764_049_651_000L),
                event(context, "Main", Level.ERROR, "cycle failed", null, failure, 1_700_000_000_001L),
                event(context, "io.fabric8.kubernetes.client.Config", Level.DEBUG, "plain", null, null, 0L),
                event(context, "a.b", Level.TRACE, "t", null, null, 86_399_999L));
        for (LoggingEvent e : events) {
            assertEquals(pattern.doLayout(e), line.doLayout(e));
        }
        assertTrue(line.doLayout(events.get(2)).contains("Caused by: java.lang.IllegalStateException: driver wedged"));
    }

    private static LoggingEvent event(LoggerContext context, String logger, Level level, String message, Object[] args,
                                      Throwable thrown, long millis) {
        LoggingEvent e = new LoggingEvent(logger, context.getLogger(logger), level, message, thrown, args);
        e.setTimeStamp(millis);
        return e;
    }
}
