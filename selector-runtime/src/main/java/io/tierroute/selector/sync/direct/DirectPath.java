package io.tierroute.selector.sync.direct;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.NumberedTransport;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.wire.ReplicaSyncInbound;
import io.tierroute.selector.sync.wire.ReplicaSyncWire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * Replica sync's direct path, started and stopped as one: a {@link DirectReceiver} on {@code listen} and a
 * {@link DirectSender} to every peer. It rides beside Kafka, never instead of it: the same numbered messages go both
 * ways, and whichever copy comes second is dropped ({@link ReplicaSync#firstCopy}).
 */
public final class DirectPath implements NumberedTransport, AutoCloseable {

    private final DirectReceiver receiver;
    private final DirectSender sender;
    private final ReplicaSyncWire wire;
    private final long maxAgeMs;

    private DirectPath(DirectReceiver receiver, DirectSender sender, ReplicaSyncWire wire, long maxAgeMs) {
        this.receiver = receiver;
        this.sender = sender;
        this.wire = wire;
        this.maxAgeMs = maxAgeMs;
    }

    /**
     * Binds {@code settings.listen()} (a port in use fails here, with the address in the message); nothing is sent or
     * received before {@link #start}.
     *
     * @param key  the replicas' shared key (at least 32 characters)
     * @param wire this replica's identity and workers, as its messages carry them
     */
    public static DirectPath open(KafkaSettings.Direct settings, String key, ReplicaSyncWire wire) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("the direct path is off (no listen address)");
        }
        KafkaSettings.HostPort l = settings.listen();
        DirectReceiver receiver = null;
        try {
            receiver = new DirectReceiver(new InetSocketAddress(l.host(), l.port()), key);
            return new DirectPath(receiver, new DirectSender(wire, key, settings.peers(), settings.bufferSize()),
                    wire, settings.maxAge().toMillis());
        } catch (IOException e) {
            if (receiver != null) {
                receiver.close();
            }
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    /** Starts receiving into {@code sync}, and sending. */
    public DirectPath start(ReplicaSync sync) {
        receiver.start(new ReplicaSyncInbound("direct replica receiver", wire.replicaId(), wire.scope(), wire.workers(),
                sync, maxAgeMs));
        sender.start();
        return this;
    }

    @Override
    public void admitted(long sequence, ReplicaAdmission admission) {
        sender.admitted(sequence, admission);
    }

    @Override
    public void event(long sequence, RequestEvent event) {
        sender.event(sequence, event);
    }

    /** Where this replica receives. */
    public InetSocketAddress listening() {
        try {
            return receiver.address();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Messages handed to the sender. */
    public long offered() { return sender.offered(); }
    /** Not sent because the buffer was full (Kafka carried them). */
    public long droppedBufferFull() { return sender.droppedFull(); }
    /** Too large for a datagram (Kafka carried them). */
    public long tooLarge() { return sender.tooLarge(); }
    /** Datagrams sent, one per address of each peer per message. */
    public long datagramsSent() { return sender.datagrams(); }
    /** Sends that failed, or went nowhere because a peer did not resolve. */
    public long sendFailed() { return sender.sendFailed(); }
    /** Messages the sender could not build (a bug; logged). */
    public long encodeFailed() { return sender.encodeFailed(); }
    /** Messages waiting to be sent. */
    public int backlog() { return sender.backlog(); }
    /** Datagrams received, refused ones included. */
    public long datagramsReceived() { return receiver.datagrams(); }
    /** Datagrams dropped unread: not replica-sync datagrams, or cut short. */
    public long refusedMalformed() { return receiver.refused(DatagramFrame.Refusal.MALFORMED); }
    /** Datagrams dropped unread: not signed with this deployment's key. */
    public long refusedUnsigned() { return receiver.refused(DatagramFrame.Refusal.UNSIGNED); }
    /** Received messages by what became of them. */
    public long received(ReplicaSyncInbound.Outcome outcome) { return receiver.inbound().count(outcome); }
    /** Received messages that were bad (all reasons, stale included). */
    public long badMessages() { return receiver.inbound().bad(); }
    /** How late the last message handed over arrived, ms; -1 before any. */
    public long lastDelayMillis() { return receiver.inbound().lastDelayMillis(); }

    /** Stops sending, then receiving. */
    @Override
    public void close() {
        sender.close();
        receiver.close();
    }
}
