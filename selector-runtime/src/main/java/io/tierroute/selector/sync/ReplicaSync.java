package io.tierroute.selector.sync;

import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.scheduling.ReplicaOutbox;
import io.tierroute.selector.scheduling.ReportedEvent;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sequences.RequestEvent;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One selector replica's end of replica sync. Outbound ({@link ReplicaOutbox}, installed on the {@link Selector}):
 * every request this replica admits and every request event reported to it go to the {@link Transport}. Inbound: the
 * other replicas' admissions join this replica's load ({@link Selector#admitReplicaRequest}) and their events apply to
 * it ({@link Selector#applyReplicaEvent}); an event whose request is not in flight here waits for its admission
 * ({@link PendingEvents}: a gateway may post a request's first token to this replica before the one that routed it
 * has been heard), and one reported here waits too. A request reported here and not in flight on any replica (a
 * client's mistake) waits out the maximum age and is counted ({@link #unmatchedEvents}).
 *
 * <p>Why events as well as admissions: a replica that hears admissions and finishes but not first tokens counts every
 * other replica's request as waiting until it finishes, which held every worker's queue in the simulator (Mooncake at
 * load 2.75: TTFT 57× one selector's; fleet-sim/experiments/ROUNDS.md, "Replicas round").
 *
 * <p>Thread-safe. Inbound calls and the second look of a reported event that was not in flight take one lock, so an
 * event is either applied or parked before its admission is applied, never lost between the two.
 */
public final class ReplicaSync implements ReplicaOutbox {

    /** Carries this replica's messages to the others; must not block (it is called on route threads). */
    public interface Transport {
        void admitted(ReplicaAdmission admission);

        void event(RequestEvent event);
    }

    /** How long an event waits for its request's admission by default: far above a healthy transport's delay. */
    public static final Duration DEFAULT_PENDING_MAX_AGE = Duration.ofSeconds(30);
    /** How many events may wait for their admissions by default (the oldest request's go first beyond it). */
    public static final int DEFAULT_MAX_PENDING = 100_000;

    private final Selector selector;
    private final Transport transport;
    private final LongSupplier nanoClock;
    private final PendingEvents pending;
    /**
     * Events of a request that had ended here (counted late), kept with the same bounds in case its id is admitted
     * again: a retry that keeps its id may have its first token and finish heard before its admission, and dropped they
     * left it waiting here until routing.requestMaxAge.
     */
    private final PendingEvents afterEnd;
    private final Object lock = new Object();

    private final LongAdder admissionsSent = new LongAdder();
    private final LongAdder eventsSent = new LongAdder();
    private final LongAdder admissionsApplied = new LongAdder();
    private final LongAdder admissionsRepeated = new LongAdder();
    private final LongAdder eventsApplied = new LongAdder();
    private final LongAdder eventsParked = new LongAdder();
    private final LongAdder eventsLate = new LongAdder();
    private final LongAdder lateEventsReused = new LongAdder();
    private final LongAdder admissionsExpired = new LongAdder();
    private final long requestMaxAgeNanos;
    /**
     * Requests that ended here lately (a finish or failure applied, an admission too old to take), under the lock: an
     * event for one of them comes after its end (another replica's progress posted before the finish and carried
     * later), so it is counted late, not parked to expire as unmatched; it is kept apart ({@link #afterEnd}) in case
     * the id is admitted again. Bounded, oldest out.
     */
    private final java.util.Map<String, Boolean> recentlyEnded = new java.util.LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, Boolean> eldest) {
            return size() > RECENTLY_ENDED;
        }
    };
    /** How many ended request ids are remembered to tell a late event from an early one. */
    static final int RECENTLY_ENDED = 65_536;
    /** The other replicas' numbered messages heard by either path, to drop the second copy of one. */
    private final SeenMessages seen = new SeenMessages(WINDOW_MESSAGES, WINDOW_SENDERS);
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder tooOldToTell = new LongAdder();
    /**
     * How many of a sender's latest message numbers are remembered (128 KiB of bits): a copy must come within this many
     * of its sender's messages after the first, which at 3,400 messages a second (100 requests a second, a progress
     * event every 16 tokens) is five minutes of Kafka lag, at ten times that rate thirty seconds.
     */
    public static final int WINDOW_MESSAGES = 1 << 20;
    /**
     * How many senders' windows are kept (16 MiB at most): every replica of a deployment (the direct path sends to at
     * most 64 peer entries) and the ids of those restarted within Kafka's lookback.
     */
    static final int WINDOW_SENDERS = 128;

    /**
     * @param nanoClock the selector's clock (parked events age by it)
     */
    public ReplicaSync(Selector selector, Transport transport, LongSupplier nanoClock, Duration pendingMaxAge,
                       int maxPending) {
        this.selector = selector;
        this.transport = transport;
        this.nanoClock = nanoClock;
        this.pending = new PendingEvents(pendingMaxAge.toNanos(), maxPending);
        this.afterEnd = new PendingEvents(pendingMaxAge.toNanos(), maxPending);
        this.requestMaxAgeNanos = selector.settings().requestMaxAge().toNanos();
    }

    /** Starts telling the other replicas (installs this as the selector's outbox). */
    public ReplicaSync install() {
        selector.replicaOutbox(this);
        return this;
    }

    /** Stops telling them; what they hear from now on is this replica's no more. */
    public void uninstall() {
        selector.replicaOutbox(null);
    }

    // ---- outbound ----

    @Override
    public void admitted(ReplicaAdmission admission) {
        admissionsSent.increment();
        transport.admitted(admission);
    }

    @Override
    public ReportedEvent reported(RequestEvent event, boolean appliedHere) {
        eventsSent.increment();
        transport.event(event);
        if (!appliedHere) {
            park(event, nanoClock.getAsLong());
        } else if (ends(event)) {
            synchronized (lock) {
                recentlyEnded.put(event.requestId(), Boolean.TRUE);
            }
        }
        return appliedHere ? ReportedEvent.APPLIED : ReportedEvent.RELAYED;
    }

    private static boolean ends(RequestEvent e) {
        return e.type() == RequestEvent.Type.FINISHED || e.type() == RequestEvent.Type.FAILED;
    }

    // ---- inbound ----

    /** What a numbered message is to this replica ({@link #heard}). */
    public enum Heard {
        /** Its first copy: take it. */
        FIRST,
        /** A second copy, the other path's having come first (counted as {@link #duplicateMessages}): drop it. */
        COPY,
        /**
         * {@link #WINDOW_MESSAGES} or more of its sender's numbers old: whether a copy came before is not known. The
         * direct path drops it (no fresh datagram is that old: a replay); Kafka's takes it (counted as
         * {@link #tooOldToTell}), as a record it alone carries.
         */
        TOO_OLD
    }

    /**
     * Whether the message {@code id} is heard here for the first time, by any path. Call before handing the message to
     * {@link #admitted(ReplicaAdmission, long)} or {@link #event}.
     */
    public Heard heard(MessageId id) {
        Heard h = seen.see(id);
        if (h == Heard.COPY) {
            duplicates.increment();
        } else if (h == Heard.TOO_OLD) {
            tooOldToTell.increment();
        }
        return h;
    }

    /**
     * Another replica admitted {@code a} at {@code atNanos} (this selector's clock): it joins this replica's load, and
     * the events that came for it before apply now, in their order. False when it was already in flight here.
     */
    public boolean admitted(ReplicaAdmission a, long atNanos) {
        long now = nanoClock.getAsLong();
        synchronized (lock) {
            expire(now);
            if (now - atNanos > requestMaxAgeNanos) {
                // Read back from before routing.requestMaxAge (a long lookback): this replica would drop it as lost
                // at its next sweep; its events, if any come, are late.
                admissionsExpired.increment();
                recentlyEnded.put(a.requestId(), Boolean.TRUE);
                pending.take(a.requestId());
                afterEnd.take(a.requestId()); // late, and counted so
                return false;
            }
            if (!selector.admitReplicaRequest(a, atNanos)) {
                admissionsRepeated.increment();
                return false;
            }
            admissionsApplied.increment();
            recentlyEnded.remove(a.requestId()); // an id used again
            applyTaken(pending.take(a.requestId()));
            // Heard after the id's last end: those that came at or after this admission are this request's (it was
            // admitted before they happened); older ones were the ended request's, late as counted.
            List<RequestEvent> reused = afterEnd.take(a.requestId(), atNanos);
            lateEventsReused.add(reused.size());
            applyTaken(reused);
            return true;
        }
    }

    /** Applies events kept for an admission just applied, in the order they came (under the lock). */
    private void applyTaken(List<RequestEvent> events) {
        for (RequestEvent e : events) {
            if (selector.applyReplicaEvent(e)) {
                eventsApplied.increment();
                if (ends(e)) {
                    recentlyEnded.put(e.requestId(), Boolean.TRUE);
                }
            }
        }
    }

    /** Another replica was told {@code event}: applied here, or kept until its request's admission comes. */
    public void event(RequestEvent event) {
        if (selector.applyReplicaEvent(event)) {
            eventsApplied.increment();
            if (ends(event)) {
                synchronized (lock) {
                    recentlyEnded.put(event.requestId(), Boolean.TRUE);
                }
            }
            return;
        }
        park(event, nanoClock.getAsLong());
    }

    /** Forgets events that waited too long for their admission (the transport calls it every few hundred ms). */
    public void expire() {
        synchronized (lock) {
            expire(nanoClock.getAsLong());
        }
    }

    /** Under the lock. Late events that waited out the age were counted when they came: not unmatched. */
    private void expire(long nowNanos) {
        pending.expire(nowNanos);
        afterEnd.expire(nowNanos);
    }

    /**
     * A second look under the lock, then parked: an admission applied in between has taken it into account. An event
     * of a request that ended here lately is late (counted), not early, and kept apart in case its id comes again.
     */
    private void park(RequestEvent event, long nowNanos) {
        synchronized (lock) {
            if (selector.applyReplicaEvent(event)) {
                eventsApplied.increment();
                if (ends(event)) {
                    recentlyEnded.put(event.requestId(), Boolean.TRUE);
                }
                return;
            }
            if (recentlyEnded.containsKey(event.requestId())) {
                eventsLate.increment();
                afterEnd.park(event, nowNanos);
                return;
            }
            pending.park(event, nowNanos);
            eventsParked.increment();
        }
    }

    /** Admissions of this replica handed to the transport. */
    public long admissionsSent() { return admissionsSent.sum(); }
    /** Events reported to this replica handed to the transport. */
    public long eventsSent() { return eventsSent.sum(); }
    /** Other replicas' admissions taken into this one's load. */
    public long admissionsApplied() { return admissionsApplied.sum(); }
    /** Other replicas' admissions of a request already in flight here (heard twice, or an id reused): ignored. */
    public long admissionsRepeated() { return admissionsRepeated.sum(); }
    /** Events other replicas relayed (or reported here) that changed this replica's load, at once or once admitted. */
    public long eventsApplied() { return eventsApplied.sum(); }
    /** Second copies of the other replicas' messages (heard by both paths): dropped. */
    public long duplicateMessages() { return duplicates.sum(); }
    /** Numbered messages too old to tell whether a copy came before ({@link Heard#TOO_OLD}). */
    public long tooOldToTell() { return tooOldToTell.sum(); }
    /**
     * Senders whose window was dropped for another's (more than {@link #WINDOW_SENDERS} heard lately): a copy of one
     * of their messages that comes after is taken as the first.
     */
    public long forgottenSenders() { return seen.forgottenSenders(); }
    /** Events that had to wait for their request's admission. */
    public long eventsParked() { return eventsParked.sum(); }

    /**
     * Events of a request that had ended here (another replica's progress carried after the finish): not applied,
     * unless a new admission of the id takes them ({@link #lateEventsReused}).
     */
    public long lateEvents() { return eventsLate.sum(); }

    /**
     * Late events a new admission of their id took after all (a retry keeping its id, its events heard before its
     * admission): they came at or after it.
     */
    public long lateEventsReused() { return lateEventsReused.sum(); }

    /** Other replicas' admissions older than {@code routing.requestMaxAge} when heard (a long lookback): not taken. */
    public long admissionsExpired() { return admissionsExpired.sum(); }

    // Read without the lock: a scrape never waits for a drain the consumer thread runs under it.

    /** Events waiting for their admission now. */
    public int pendingEvents() { return pending.size(); }

    /** Events whose admission never came within the maximum age (a request no replica routed, or lost messages). */
    public long unmatchedEvents() { return pending.expired(); }

    /** Events dropped because too many waited for their admissions. */
    public long droppedEvents() { return pending.dropped(); }
}
