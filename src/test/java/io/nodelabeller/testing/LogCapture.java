package io.nodelabeller.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What one class logs while a test runs: {@code try (LogCapture log = LogCapture.of(Cycle.class)) { ... }}, the
 * events read with {@link #events()}; closing detaches it, so that no other test sees it.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(Class<?> type) {
        logger = (Logger) LoggerFactory.getLogger(type);
        appender.start();
        logger.addAppender(appender);
    }

    /** Starts capturing what the logger of {@code type} writes. */
    public static LogCapture of(Class<?> type) {
        return new LogCapture(type);
    }

    /** Every event so far, in order. */
    public List<ILoggingEvent> events() {
        return List.copyOf(appender.list);
    }

    /** The formatted messages of the events at {@code level} or above, in order. */
    public List<String> messages(Level level) {
        return events().stream().filter(e -> e.getLevel().isGreaterOrEqual(level)).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}
