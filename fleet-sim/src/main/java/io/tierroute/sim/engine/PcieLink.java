package io.tierroute.sim.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * One worker's host-to-device link (PCIe), shared by every tier load in flight on that worker with
 * processor sharing: n concurrent transfers each progress at {@code bandwidth / n}. So a second load
 * started while one runs halves the first one's rate, and contention is real.
 *
 * <p>Not thread-safe; the simulator's single thread owns it. Time is in virtual microseconds.
 */
public final class PcieLink {

    /** One transfer in flight. */
    public static final class Transfer {
        final Object owner;
        final double bytes;
        double remaining;

        Transfer(Object owner, double bytes) {
            this.owner = owner;
            this.bytes = bytes;
            this.remaining = bytes;
        }

        public Object owner() { return owner; }
        public double bytes() { return bytes; }
    }

    private static final double DONE_EPSILON_BYTES = 1e-3;

    private final double bytesPerMicro;
    private final List<Transfer> active = new ArrayList<>();
    private long lastUpdate;
    private long busyMicros;
    private double bytesMoved;
    private long version;

    /** @param bytesPerSecond the link's bandwidth */
    public PcieLink(double bytesPerSecond) {
        if (!(bytesPerSecond > 0)) {
            throw new IllegalArgumentException("link bandwidth must be > 0 bytes/s, got " + bytesPerSecond);
        }
        this.bytesPerMicro = bytesPerSecond / 1e6;
    }

    /** Starts moving {@code bytes} for {@code owner} at {@code now}. Bumps {@link #version()}. */
    public Transfer start(long now, double bytes, Object owner) {
        advance(now);
        Transfer t = new Transfer(owner, Math.max(bytes, DONE_EPSILON_BYTES * 2));
        active.add(t);
        version++;
        return t;
    }

    /** Removes and returns the transfers finished by {@code now}. Bumps {@link #version()} if any. */
    public List<Transfer> complete(long now) {
        advance(now);
        List<Transfer> done = new ArrayList<>(1);
        for (int i = active.size() - 1; i >= 0; i--) {
            if (active.get(i).remaining <= DONE_EPSILON_BYTES) {
                done.add(active.remove(i));
            }
        }
        if (!done.isEmpty()) {
            version++;
        }
        return done;
    }

    /** When the next transfer finishes if nothing else starts, or -1 when idle. */
    public long nextCompletion(long now) {
        advance(now);
        if (active.isEmpty()) {
            return -1;
        }
        double min = Double.MAX_VALUE;
        for (Transfer t : active) {
            min = Math.min(min, t.remaining);
        }
        return now + Math.max(0, (long) Math.ceil(min * active.size() / bytesPerMicro));
    }

    private void advance(long now) {
        long dt = now - lastUpdate;
        if (dt > 0 && !active.isEmpty()) {
            double each = dt * bytesPerMicro / active.size();
            for (Transfer t : active) {
                double moved = Math.min(each, t.remaining);
                t.remaining -= moved;
                bytesMoved += moved;
            }
            busyMicros += dt;
        }
        lastUpdate = Math.max(lastUpdate, now);
    }

    /** Changes whenever the set of transfers changes: completion events carry it to detect staleness. */
    public long version() { return version; }

    public int activeTransfers() { return active.size(); }

    /** Bytes still to move over the link, as of the last update. */
    public double pendingBytes(long now) {
        advance(now);
        double sum = 0;
        for (Transfer t : active) {
            sum += t.remaining;
        }
        return sum;
    }

    /** Virtual µs during which at least one transfer was in flight, up to {@code now}. */
    public long busyMicros(long now) {
        advance(now);
        return busyMicros;
    }

    /** Bytes moved so far, up to {@code now}. */
    public double bytesMoved(long now) {
        advance(now);
        return bytesMoved;
    }
}
