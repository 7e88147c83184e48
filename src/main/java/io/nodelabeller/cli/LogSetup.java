package io.nodelabeller.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * node-labeller's logging, set up in code: one line per event on stderr (stdout carries only what {@code print} and
 * {@code explain} print), {@code <time> <LEVEL> <class>: <message>} ({@link LogLine}); the root level from
 * {@code NODE_LABELLER_LOG_LEVEL} (default INFO); the libraries' chatter (Quartz, fabric8, JNA) at WARN.
 *
 * <p>Logback finds this class through {@code META-INF/services/ch.qos.logback.classic.spi.Configurator} (its
 * documented way to configure without a file) and reads no {@code logback.xml}: the XML configurator loads some 500
 * classes and costs ~30 ms at every start.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        LogLine layout = new LogLine();
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        for (String library : new String[] {"org.quartz", "io.fabric8", "com.sun.jna"}) {
            context.getLogger(library).setLevel(Level.WARN);
        }
        // The informer of NodeFeatureRule objects (the agent's only one) logs every failed LIST with a stack trace:
        // WARN "will retry", or ERROR "will stop" when the CRD is absent (404), at start and at every recheck: ~160
        // lines an hour on a healthy node without NFD. Each of those failures first reaches NodeFeatureRules'
        // exception handler, which logs the state change in one line (and its end), so the informer's are dropped.
        context.getLogger("io.fabric8.kubernetes.client.informers.impl.cache.Reflector").setLevel(Level.OFF);
        // A watch's WebSocket closed by the API server without a status code (as it stops, restarts or drops the
        // connection): fabric8 echoes the close, the JDK refuses that status (IllegalArgumentException "statusCode"),
        // and its WebSocket wrapper logs "Queued close did not succeed" with a stack trace at WARN on every node. The
        // watch is renewed all the same, and a connection that stays down is the publisher's and the feeds' one-line
        // problem; so the wrapper's own lines are dropped.
        context.getLogger("io.fabric8.kubernetes.client.jdkhttp.JdkWebSocketImpl").setLevel(Level.OFF);
        // "using resource type 'nodefeaturerules' with unstable version 'v1alpha1'": NFD's API is v1alpha1, expected
        context.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils").setLevel(Level.ERROR);
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(rootLevel(Environment.system().get(Environment.LOG_LEVEL)));
        root.addAppender(stderr);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** The level named (any case), INFO when the name is empty or no level's. */
    static Level rootLevel(String name) {
        return Level.toLevel(name, Level.INFO);
    }
}
