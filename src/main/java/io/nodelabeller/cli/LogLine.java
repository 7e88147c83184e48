package io.nodelabeller.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * node-labeller's log line, {@code <time> <LEVEL> <class>: <message>} and the stack trace of an exception below it:
 * what the pattern {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0}: %msg%n} prints, as a logback
 * {@link ch.qos.logback.core.Layout} of its own. logback's {@code PatternLayout} loads its whole converter
 * table (~150 classes: every converter and a lambda for each) to print these five fields, and a daemon keeps
 * every class it loaded for as long as it runs.
 */
final class LogLine extends LayoutBase<ILoggingEvent> {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneId.systemDefault());

    @Override
    public String doLayout(ILoggingEvent event) {
        String logger = event.getLoggerName();
        String level = event.getLevel().toString();
        StringBuilder line = new StringBuilder(96)
                .append(TIME.format(Instant.ofEpochMilli(event.getTimeStamp()))).append(' ')
                .append(level).append(" ".repeat(Math.max(1, 6 - level.length())))
                .append(logger, logger.lastIndexOf('.') + 1, logger.length()).append(": ")
                .append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR);
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            line.append(ThrowableProxyUtil.asString(thrown));
        }
        return line.toString();
    }
}
