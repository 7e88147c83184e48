package io.nodelabeller.publish;

import org.slf4j.Logger;

/** Logs a failure once when it starts or changes kind, and once when things work again — not every cycle. */
final class ProblemLog {

    private final Logger log;
    private final String subject;
    private String last;

    ProblemLog(Logger log, String subject) {
        this.log = log;
        this.subject = subject;
    }

    synchronized void failed(String kind, String message) {
        if (!kind.equals(last)) {
            log.warn("{}: {}", subject, message);
            last = kind;
        } else {
            log.debug("{}: {}", subject, message);
        }
    }

    synchronized void ok() {
        if (last != null) {
            log.info("{}: working again", subject);
            last = null;
        }
    }
}
