package io.tierroute.selector.sync;

import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;

/**
 * One path to the other replicas for messages already numbered ({@link NumberingTransport}): every path carries a
 * message under the same number, so a receiver that hears it twice knows the second copy. Must not block (called on
 * route and request threads).
 */
public interface NumberedTransport {

    void admitted(long sequence, ReplicaAdmission admission);

    void event(long sequence, RequestEvent event);
}
