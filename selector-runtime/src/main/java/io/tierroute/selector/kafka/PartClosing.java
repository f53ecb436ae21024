package io.tierroute.selector.kafka;

import org.slf4j.Logger;

/**
 * Closes the Kafka parts one by one, each whatever the others did: a part whose close throws must not leave the ones
 * after it running (their threads, their clients' connections). The first failure is thrown once all were closed, the
 * later ones logged and attached to it as suppressed.
 */
final class PartClosing {

    private final Logger log;
    private RuntimeException first;

    PartClosing(Logger log) {
        this.log = log;
    }

    /** Closes one part ({@code part} names it in the log). */
    void close(String part, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            if (first == null) {
                first = e;
            } else {
                first.addSuppressed(e);
            }
            log.warn("kafka: closing the {} failed: {}; closing the other parts", part, SessionLoop.describe(e), e);
        }
    }

    /** Throws the first failure, if any. */
    void done() {
        if (first != null) {
            throw first;
        }
    }
}
