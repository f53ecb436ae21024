package io.tierroute.selector.sync.direct;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.sync.NumberedMessage;
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
 * ways, and whichever copy comes second is dropped ({@link ReplicaSync#heard}).
 */
public final class DirectPath implements NumberedTransport, AutoCloseable {

    private final DirectReceiver receiver;
    private final DirectSender sender;
    private final ReplicaSyncWire wire;
    private final long maxAgeMs;
    private final InetSocketAddress listening;

    /** The shortest replica key taken. */
    public static final int MIN_KEY_CHARS = DatagramFrame.MIN_KEY_CHARS;

    private DirectPath(DirectReceiver receiver, DirectSender sender, ReplicaSyncWire wire, long maxAgeMs) {
        this.receiver = receiver;
        this.sender = sender;
        this.wire = wire;
        this.maxAgeMs = maxAgeMs;
        this.listening = receiver.address();
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
        DirectSender sender = null;
        try {
            receiver = new DirectReceiver(new InetSocketAddress(l.host(), l.port()), key);
            sender = new DirectSender(wire::encode, key, settings.peers(), settings.bufferSize());
            return new DirectPath(receiver, sender, wire, settings.maxAge().toMillis());
        } catch (IOException | RuntimeException e) {
            if (sender != null) {
                sender.close();
            }
            if (receiver != null) {
                receiver.close();
            }
            throw e instanceof IOException io ? new UncheckedIOException(io.getMessage(), io) : (RuntimeException) e;
        }
    }

    /** Starts receiving into {@code sync}, and sending. */
    public DirectPath start(ReplicaSync sync) {
        receiver.start(new ReplicaSyncInbound("direct replica receiver", wire.replicaId(), wire.scope(), wire.workers(),
                sync, maxAgeMs, true));
        sender.start();
        return this;
    }

    @Override
    public void send(NumberedMessage message) {
        sender.send(message);
    }

    /** Where this replica receives (the port bound, when 0 was asked for). */
    public InetSocketAddress listening() {
        return listening;
    }

    /** Messages handed to the sender. */
    public long offered() { return sender.offered(); }
    /** Not sent because the buffer was full (Kafka carried them). */
    public long droppedBufferFull() { return sender.droppedFull(); }
    /** Not sent because the path was closing, closed or its sender stopped (Kafka carried them). */
    public long droppedClosed() { return sender.droppedClosed(); }
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
    /** Received messages by what became of them (0 before {@link #start}). */
    public long received(ReplicaSyncInbound.Outcome outcome) {
        ReplicaSyncInbound in = receiver.inbound();
        return in == null ? 0 : in.count(outcome);
    }

    /** Received messages that were bad (all reasons, stale included). */
    public long badMessages() {
        ReplicaSyncInbound in = receiver.inbound();
        return in == null ? 0 : in.bad();
    }

    /** Why an Error stopped the receiving thread for good (nothing is received any more), or null while it runs. */
    public String receiverStopped() { return receiver.stopped(); }

    /** Why an Error stopped the sending thread for good (nothing is sent any more), or null while it runs. */
    public String senderStopped() { return sender.stopped(); }

    /** How late the last live message arrived by this path, ms; -1 before any. */
    public long lastDelayMillis() {
        ReplicaSyncInbound in = receiver.inbound();
        return in == null ? -1 : in.lastDelayMillis();
    }

    /** Stops sending, then receiving; waits for both threads even when the caller is interrupted (its interrupt kept). */
    @Override
    public void close() {
        sender.close();
        receiver.close();
    }
}
