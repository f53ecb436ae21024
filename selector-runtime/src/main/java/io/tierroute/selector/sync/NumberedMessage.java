package io.tierroute.selector.sync;

import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;

/**
 * One outgoing message as every path carries it: its number ({@link MessageId#sequence}), an admission or an event
 * (exactly one), and when it happened (ms since the epoch). Built once on the route or request thread
 * ({@link NumberingTransport}) and shared by the paths, which encode it on their own threads.
 */
public record NumberedMessage(long sequence, ReplicaAdmission admission, RequestEvent event, long timestampMs) {

    public NumberedMessage {
        if ((admission == null) == (event == null)) {
            throw new IllegalArgumentException("exactly one of an admission and an event");
        }
    }

    public String requestId() {
        return admission != null ? admission.requestId() : event.requestId();
    }
}
