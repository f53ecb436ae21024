package io.tierroute.selector.server;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Waits (up to 5 s) for a server's admission queue to reach a length, and asserts it did. */
final class QueueLength {

    private QueueLength() {
    }

    static void await(SelectorServer s, int length) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.selector().queueLength() != length && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(s.selector().queueLength()).as("admission queue length").isEqualTo(length);
    }
}
