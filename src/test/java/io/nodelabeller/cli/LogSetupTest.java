package io.nodelabeller.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Logging is configured in code: logback finds LogSetup as its Configurator service, and no logback.xml exists. */
class LogSetupTest {

    @Test
    void logbackFindsTheConfiguratorAndThereIsNoXmlConfiguration() {
        assertTrue(ServiceLoader.load(Configurator.class).stream().anyMatch(p -> p.type() == LogSetup.class),
                "META-INF/services/ch.qos.logback.classic.spi.Configurator names LogSetup");
        assertEquals(null, getClass().getClassLoader().getResource("logback.xml"), "no XML configuration to parse");
    }

    @Test
    void configuresStderrAtTheEnvironmentsLevelAndQuietLibraries() {
        LoggerContext context = new LoggerContext();
        new LogSetup().configure(context);
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ConsoleAppender<?> stderr = assertInstanceOf(ConsoleAppender.class, root.getAppender("STDERR"));
        assertEquals("System.err", stderr.getTarget());
        assertTrue(stderr.isStarted());
        LayoutWrappingEncoder<?> encoder = assertInstanceOf(LayoutWrappingEncoder.class, stderr.getEncoder());
        assertInstanceOf(LogLine.class, encoder.getLayout(), "our own layout, not PatternLayout and its converter table");
        assertEquals(Level.WARN, context.getLogger("io.fabric8.kubernetes.client").getEffectiveLevel());
        assertEquals(Level.WARN, context.getLogger("org.quartz.core").getEffectiveLevel());
        assertEquals(LogSetup.rootLevel(System.getenv(Environment.LOG_LEVEL)), root.getLevel());
    }

    @Test
    void levelNamesInAnyCaseAndInfoOtherwise() {
        assertEquals(Level.DEBUG, LogSetup.rootLevel("debug"));
        assertEquals(Level.WARN, LogSetup.rootLevel("WARN"));
        assertEquals(Level.INFO, LogSetup.rootLevel(""));
        assertEquals(Level.INFO, LogSetup.rootLevel("verbose"));
    }
}
