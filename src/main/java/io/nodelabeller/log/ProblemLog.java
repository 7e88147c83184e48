package io.nodelabeller.log;

import org.slf4j.Logger;
import org.slf4j.event.Level;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Logs a subject's problems when they appear, not every cycle: the one place that remembers what was said last
 * time. A report gives the problems as they stand now, each under a kind ("http-503", "watch", or the message itself
 * when it has no variable part): a kind that was not there at the previous report is logged once, at the level the
 * report asks for; one still there is logged at DEBUG only; {@link #ok} says once that things work again.
 * Every sub-system that fails every cycle while the cause lasts (the node patch, the node watch, the NodeFeature
 * object, its owner references, a source, NVML) logs through one of these.
 */
public final class ProblemLog {

    private final Logger log;
    private final String subject;
    private Map<String, String> last = Map.of();

    /** Lines read {@code "<subject>: <message>"}; a null or empty subject gives the message alone. */
    public ProblemLog(Logger log, String subject) {
        this.log = log;
        this.subject = subject == null || subject.isEmpty() ? null : subject;
    }

    /** One problem of one kind, which replaces whatever was reported before; new kinds are logged at WARN. */
    public void failed(String kind, String message) {
        report(Map.of(kind, message), Level.WARN);
    }

    /** The problems now, each its own kind (a message with no variable part); new ones are logged at WARN. */
    public void report(Collection<String> now) {
        report(now, Level.WARN);
    }

    /** As {@link #report(Collection)}, new ones logged at {@code level}. */
    public void report(Collection<String> now, Level level) {
        Map<String, String> byKind = new LinkedHashMap<>();
        now.forEach(p -> byKind.put(p, p));
        report(byKind, level);
    }

    /** The problems now, kind to message (in the order to log them); new kinds are logged at WARN. */
    public void report(Map<String, String> now) {
        report(now, Level.WARN);
    }

    /** The problems now; kinds that are new are logged at {@code level}, the others at DEBUG. */
    public synchronized void report(Map<String, String> now, Level level) {
        now.forEach((kind, message) -> write(last.containsKey(kind) ? Level.DEBUG : level, message));
        last = new LinkedHashMap<>(now);
    }

    /** Nothing is wrong any more: logs "working again" once, at INFO, when something was. */
    public void ok() {
        ok("working again");
    }

    /** As {@link #ok()}, with its own line; returns whether something was wrong until now. */
    public synchronized boolean ok(String recovered) {
        boolean was = !last.isEmpty();
        if (was) {
            write(Level.INFO, recovered);
            last = Map.of();
        }
        return was;
    }

    /** The kinds reported last time. */
    public synchronized Set<String> current() {
        return Set.copyOf(last.keySet());
    }

    private void write(Level level, String message) {
        String line = subject == null ? message : subject + ": " + message;
        switch (level) {
            case WARN, ERROR -> log.warn("{}", line);
            case INFO -> log.info("{}", line);
            default -> log.debug("{}", line);
        }
    }
}
