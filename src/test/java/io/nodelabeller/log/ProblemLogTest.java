package io.nodelabeller.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One line per state change: a problem when it appears, nothing while it lasts, one line when it is gone. */
class ProblemLogTest {

    private final Logger logger = new LoggerContext().getLogger("test");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final ProblemLog problems = new ProblemLog(logger, "node n1");

    @BeforeEach
    void capture() {
        logger.setLevel(Level.DEBUG);
        lines.start();
        logger.addAppender(lines);
    }

    private List<String> above(Level level) {
        return lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(level))
                .map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
    }

    @Test
    void aLastingProblemIsLoggedOnceAndItsEndOnce() {
        for (int cycle = 0; cycle < 5; cycle++) {
            problems.failed("http-503", "PATCH failed (attempt " + cycle + ")");
        }
        problems.ok();
        problems.ok();
        assertEquals(List.of("WARN node n1: PATCH failed (attempt 0)", "INFO node n1: working again"), above(Level.INFO));
        assertEquals(4, above(Level.DEBUG).size() - 2, "the repeats are at DEBUG: " + above(Level.DEBUG));
    }

    @Test
    void aNewKindIsANewProblemAndAGoneOneCanComeBack() {
        problems.failed("http-503", "unavailable");
        problems.failed("http-403", "forbidden");
        problems.failed("http-503", "unavailable again");
        assertEquals(List.of("WARN node n1: unavailable", "WARN node n1: forbidden", "WARN node n1: unavailable again"),
                above(Level.INFO));
    }

    @Test
    void reportsSeveralProblemsAtTheAskedLevelAndKnowsWhichAreCurrent() {
        Map<String, String> now = new LinkedHashMap<>();
        now.put("a", "first");
        now.put("b", "second");
        problems.report(now, org.slf4j.event.Level.INFO);
        problems.report(Map.of("b", "second"));
        assertEquals(java.util.Set.of("b"), problems.current());
        problems.report(Map.of("b", "second", "c", "third"));
        assertEquals(List.of("INFO node n1: first", "INFO node n1: second", "WARN node n1: third"), above(Level.INFO));
        assertTrue(problems.ok("back"));
        assertFalse(problems.ok("back"), "nothing was wrong any more");
    }

    @Test
    void messagesWithoutAVariablePartAreTheirOwnKind() {
        problems.report(List.of("one device skipped", "no /proc/modules"));
        problems.report(List.of("no /proc/modules"));
        problems.report(List.of("no /proc/modules", "one device skipped"), org.slf4j.event.Level.INFO);
        assertEquals(List.of("WARN node n1: one device skipped", "WARN node n1: no /proc/modules",
                "INFO node n1: one device skipped"), above(Level.INFO));
    }

    @Test
    void withoutSubjectTheLineIsTheMessage() {
        new ProblemLog(logger, null).failed("x", "NVML found no GPU");
        assertEquals(List.of("WARN NVML found no GPU"), above(Level.INFO));
    }
}
