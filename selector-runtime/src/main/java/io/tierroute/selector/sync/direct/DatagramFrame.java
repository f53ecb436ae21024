package io.tierroute.selector.sync.direct;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * One direct-path datagram: {@code "TRS1"}, the message's sequence number (8 bytes, big-endian), the encoded
 * {@code ReplicaSyncMessage}, and an HMAC-SHA256 of all that under the replicas' shared key (32 bytes). The key
 * authenticates the sender (anyone who can reach the port but lacks it is dropped); the number and the message's own
 * replica id and time let the receiver drop a copy or a replay ({@code ReplicaSync.heard}, the maximum age).
 *
 * <p>Not thread-safe (a {@link Mac} each): one per sending or receiving thread.
 */
final class DatagramFrame {

    static final byte[] MAGIC = "TRS1".getBytes(StandardCharsets.US_ASCII);
    static final int MAC_BYTES = 32;
    static final int HEADER_BYTES = MAGIC.length + Long.BYTES;
    /** The largest datagram sent: what one UDP datagram can carry over IPv4, with room to spare. */
    static final int MAX_DATAGRAM = 65_000;
    /** The largest message one datagram carries; a larger one (a prompt of very many prefix marks) goes by Kafka only. */
    static final int MAX_PAYLOAD = MAX_DATAGRAM - HEADER_BYTES - MAC_BYTES;
    /** The shortest key taken: 32 characters, as many bytes as the MAC. */
    static final int MIN_KEY_CHARS = 32;

    /** Why a datagram was not taken. */
    enum Refusal { MALFORMED, UNSIGNED }

    /** A datagram that was not taken, and why. */
    static final class RefusedException extends Exception {
        final Refusal reason;

        RefusedException(Refusal reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }

    /** A datagram's content once checked. */
    record Message(long sequence, byte[] payload) {}

    private final Mac mac;
    private final byte[] expected = new byte[MAC_BYTES];

    DatagramFrame(String key) {
        if (key == null || key.length() < MIN_KEY_CHARS) {
            throw new IllegalArgumentException("the replica key must have at least " + MIN_KEY_CHARS + " characters"
                    + (key == null ? "; none given" : ", got " + key.length()));
        }
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Writes the datagram of {@code payload} into {@code out} (cleared first), ready to send. */
    void write(long sequence, byte[] payload, ByteBuffer out) {
        if (payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("a message of " + payload.length + " bytes does not fit one datagram ("
                    + MAX_PAYLOAD + " at most)");
        }
        out.clear();
        out.put(MAGIC).putLong(sequence).put(payload);
        int end = out.position();
        mac.update(out.array(), out.arrayOffset(), end);
        try {
            mac.doFinal(out.array(), out.arrayOffset() + end);
        } catch (javax.crypto.ShortBufferException e) {
            throw new IllegalStateException(e); // out holds MAX_DATAGRAM bytes
        }
        out.position(end + MAC_BYTES);
        out.flip();
    }

    /** The checked content of the datagram in {@code in} (position 0 to limit); refused when malformed or unsigned. */
    Message read(ByteBuffer in) throws RefusedException {
        int length = in.remaining();
        if (length < HEADER_BYTES + MAC_BYTES) {
            throw new RefusedException(Refusal.MALFORMED, length + " bytes, shorter than any datagram");
        }
        byte[] a = in.array();
        int off = in.arrayOffset() + in.position();
        if (!Arrays.equals(a, off, off + MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new RefusedException(Refusal.MALFORMED, "not a replica sync datagram (no TRS1 at its start)");
        }
        int signed = length - MAC_BYTES;
        mac.update(a, off, signed);
        try {
            mac.doFinal(expected, 0);
        } catch (javax.crypto.ShortBufferException e) {
            throw new IllegalStateException(e);
        }
        if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(a, off + signed, off + length))) {
            throw new RefusedException(Refusal.UNSIGNED, "its signature does not match the replica key (another key, "
                    + "or altered on the way)");
        }
        long sequence = ByteBuffer.wrap(a, off + MAGIC.length, Long.BYTES).getLong();
        if (sequence < 1) {
            throw new RefusedException(Refusal.MALFORMED, "sequence number " + sequence + " (they start at 1)");
        }
        return new Message(sequence, Arrays.copyOfRange(a, off + HEADER_BYTES, off + signed));
    }
}
