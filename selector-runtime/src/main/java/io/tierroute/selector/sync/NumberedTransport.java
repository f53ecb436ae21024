package io.tierroute.selector.sync;

/**
 * One path to the other replicas for messages already numbered ({@link NumberingTransport}): every path carries a
 * message under the same number, so a receiver that hears it twice knows the second copy. Must not block (called on
 * route and request threads).
 */
public interface NumberedTransport {

    void send(NumberedMessage message);
}
