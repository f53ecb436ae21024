package io.tierroute.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * What a command started, closed newest first: a part that fails to close is reported and the others still close.
 * {@link #close} is safe to call twice.
 */
final class Closers implements AutoCloseable {
    private final String who;
    private final List<AutoCloseable> parts = new ArrayList<>();

    /** @param who how a failure to close is prefixed on stderr, e.g. "tierroute demo" */
    Closers(String who) {
        this.who = who;
    }

    synchronized void add(AutoCloseable part) {
        parts.add(part);
    }

    @Override
    public synchronized void close() {
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (Exception e) {
                System.err.println(who + ": while stopping: " + e);
            }
        }
        parts.clear();
    }
}
