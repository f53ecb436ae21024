package io.tierroute.selector.sync.wire;

import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordDecodeException;
import io.tierroute.schemas.UnknownSchemaException;
import io.tierroute.schemas.avro.ReplicaAdmitted;
import io.tierroute.schemas.avro.ReplicaRequestEvent;
import io.tierroute.schemas.avro.ReplicaSyncMessage;
import io.tierroute.selector.config.ConfigLoader;
import io.tierroute.selector.logging.LogLimiter;
import io.tierroute.selector.protocol.Tier;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import io.tierroute.selector.sync.MessageId;
import io.tierroute.selector.sync.ReplicaSync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * One path's intake of the other replicas' messages (the Kafka consumer's, the direct receiver's): decodes a
 * {@code ReplicaSyncMessage}, skips this replica's own and another scope's, drops the second copy of a message the
 * other path brought first ({@link ReplicaSync#heard}), validates it as the HTTP API bounds the same values, and
 * hands the admission or event to the {@link ReplicaSync}, dated by the message's time mapped onto this process's
 * clock. Bad messages never throw: each is counted by its {@link Outcome} and logged (rate-limited; an unknown worker
 * once per name). Thread-safe (counters only); one instance per path.
 */
public final class ReplicaSyncInbound {

    private static final Logger log = LoggerFactory.getLogger(ReplicaSyncInbound.class);

    /** What became of one message. */
    public enum Outcome {
        /** Handed to the sync (applied, parked for its admission, or found late there). */
        HANDED_OVER(false),
        /** This replica's own, read back: skipped. */
        OWN(false),
        /** Another deployment's (another {@code kafka.scope}): its workers are not these, whatever their names. */
        OTHER_SCOPE(false),
        /** The second copy of a message the other path brought first: dropped. */
        DUPLICATE(false),
        /**
         * Older than the path's maximum age, or (the direct path) too many of its sender's numbers old to tell a copy
         * (a datagram replayed, or a clock far off): dropped.
         */
        STALE(true),
        CORRUPT(true), UNKNOWN_SCHEMA(true), UNKNOWN_WORKER(true), INVALID(true);

        private final boolean bad;

        Outcome(boolean bad) {
            this.bad = bad;
        }

        /** Whether it counts as a bad message (logged, and under the bad-records metric). */
        public boolean bad() {
            return bad;
        }
    }

    /** Ids and names as the HTTP API bounds them (a request id, a workflow id, a tool name). */
    static final int MAX_ID_CHARS = ConfigLoader.MAX_NAME_CHARS;
    /** Expected tools of one admission, as the HTTP API bounds them. */
    static final int MAX_TOOLS = 256;
    private static final long MAX_DELAY_MS = TimeUnit.DAYS.toMillis(1);
    /** The largest maximum age a path may set (so that now ± it cannot overflow). */
    public static final long MAX_AGE_LIMIT_MS = TimeUnit.DAYS.toMillis(1);

    private final String path;
    private final String replicaId;
    private final String scope;
    private final WorkerRegistry workers;
    private final ReplicaSync sync;
    private final long maxAgeMs;
    private final boolean tooOldIsStale;
    private final LongAdder[] counts = new LongAdder[Outcome.values().length];
    private final LogLimiter badLog = new LogLimiter(20, 1000);
    private final Set<String> unknownLogged = ConcurrentHashMap.newKeySet();
    private volatile long liveFromMs = Long.MAX_VALUE;
    private volatile long lastDelayMillis = -1;

    /**
     * @param path      this path's name in logs ("replica sync consumer", "direct replica receiver")
     * @param replicaId this replica's id: messages carrying it are its own
     * @param maxAgeMs  messages older than this (by their sender's clock against this one's) are {@link Outcome#STALE};
     *                  {@link Long#MAX_VALUE} for none
     * @param tooOldIsStale whether a message too many of its sender's numbers old to tell a copy
     *                  ({@link ReplicaSync.Heard#TOO_OLD}) is {@link Outcome#STALE} (the direct path: no fresh datagram
     *                  is) or taken (Kafka's: a record only it carries, read back or late)
     */
    public ReplicaSyncInbound(String path, String replicaId, String scope, WorkerRegistry workers, ReplicaSync sync,
                              long maxAgeMs, boolean tooOldIsStale) {
        this.path = path;
        this.replicaId = replicaId;
        this.scope = scope;
        this.workers = workers;
        this.sync = sync;
        if (maxAgeMs < 1 || (maxAgeMs > MAX_AGE_LIMIT_MS && maxAgeMs != Long.MAX_VALUE)) {
            throw new IllegalArgumentException("maxAgeMs must be 1 to " + MAX_AGE_LIMIT_MS + " or none, got " + maxAgeMs);
        }
        this.maxAgeMs = maxAgeMs;
        this.tooOldIsStale = tooOldIsStale;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** From now on messages are live, not read back: their delay is {@link #lastDelayMillis}. */
    public void liveFrom(long epochMillis) {
        if (liveFromMs == Long.MAX_VALUE) {
            liveFromMs = epochMillis;
        }
    }

    /**
     * Takes one message.
     *
     * @param value    its bytes
     * @param sequence its sender's number ({@link MessageId#sequence}), 0 when it carries none (a record written before
     *                 numbering; never taken for a copy)
     * @param where    where it came from, for a log line
     */
    public Outcome handle(byte[] value, long sequence, Supplier<String> where) {
        Outcome o = take(value, sequence, where);
        counts[o.ordinal()].increment();
        return o;
    }

    private Outcome take(byte[] value, long sequence, Supplier<String> where) {
        ReplicaSyncMessage m;
        try {
            m = Codecs.REPLICA_SYNC_MESSAGE.decode(value);
        } catch (RecordDecodeException e) {
            return bad(e instanceof UnknownSchemaException ? Outcome.UNKNOWN_SCHEMA : Outcome.CORRUPT, where,
                    e.getMessage());
        }
        if (replicaId.equals(m.getReplicaId())) {
            return Outcome.OWN;
        }
        if (!scope.equals(m.getScope())) {
            return Outcome.OTHER_SCOPE;
        }
        try {
            checkId("requestId", m.getRequestId());
        } catch (IllegalArgumentException e) {
            return bad(Outcome.INVALID, where, e.getMessage());
        }
        long now = System.currentTimeMillis();
        long sentMs = m.getTimestampMs();
        if (maxAgeMs < Long.MAX_VALUE && (sentMs < now - maxAgeMs || sentMs > now + maxAgeMs)) {
            return bad(Outcome.STALE, where, "sent at " + m.getTimestampMs() + " ms, " + (now - m.getTimestampMs())
                    + " ms ago by this clock; at most " + maxAgeMs + " ms either way are taken");
        }
        // A clock ahead counts as no delay; one a day behind or more, as a day (the request has long expired here).
        long delayMs = Math.min(Math.max(0, now - sentMs), MAX_DELAY_MS);
        if (sentMs >= liveFromMs) {
            lastDelayMillis = delayMs; // every live message, the second copies too: this path's delay, not the winner's
        }
        if (sequence > 0) {
            ReplicaSync.Heard heard = sync.heard(new MessageId(m.getReplicaId(), sequence));
            if (heard == ReplicaSync.Heard.COPY) {
                return Outcome.DUPLICATE;
            }
            if (heard == ReplicaSync.Heard.TOO_OLD && tooOldIsStale) {
                return bad(Outcome.STALE, where, "message " + sequence + " of replica '" + m.getReplicaId() + "' is "
                        + ReplicaSync.WINDOW_MESSAGES + " or more of its messages old (a replay?)");
            }
        }
        long atNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(delayMs);
        try {
            if (m.getMessage() instanceof ReplicaAdmitted a) {
                Optional<Integer> w = workers.find(a.getWorker());
                if (w.isEmpty()) {
                    if (unknownLogged.size() < 1000 && unknownLogged.add(a.getWorker())) {
                        log.warn("{}: admissions to worker '{}', which this selector does not have, are ignored (first "
                                + "from replica '{}' at {}; the replicas' worker lists differ; logged once per worker)",
                                path, a.getWorker(), m.getSelectorId(), where.get());
                    }
                    return Outcome.UNKNOWN_WORKER;
                }
                sync.admitted(admission(m.getRequestId(), w.get(), a), atNanos);
            } else if (m.getMessage() instanceof ReplicaRequestEvent e) {
                if (e.getTokens() > RouteRequest.MAX_INPUT_TOKENS) {
                    throw new IllegalArgumentException("tokens must be at most " + RouteRequest.MAX_INPUT_TOKENS
                            + ", got " + e.getTokens());
                }
                sync.event(new RequestEvent(m.getRequestId(), RequestEvent.Type.valueOf(e.getType().name()),
                        e.getTokens()));
            } else {
                return bad(Outcome.INVALID, where, "neither an admission nor an event: " + m.getMessage());
            }
        } catch (IllegalArgumentException e) {
            return bad(Outcome.INVALID, where, "request '" + m.getRequestId() + "': " + e.getMessage());
        } catch (RuntimeException e) {
            // Not a value check's: a bug somewhere behind. The message is skipped, not retried: a Kafka session restart
            // would read it again and fail the same way, forever.
            return bad(Outcome.INVALID, where, "request '" + m.getRequestId() + "' could not be applied: " + e);
        }
        return Outcome.HANDED_OVER;
    }

    /**
     * A message whose bytes could not even be read (a damaged Kafka record batch, skipped by its reader): counted and
     * logged as {@link Outcome#CORRUPT}.
     */
    public void unreadable(String where, String why) {
        bad(Outcome.CORRUPT, () -> where, "cannot be read (" + why + "); skipped");
        counts[Outcome.CORRUPT.ordinal()].increment();
    }

    /** Messages that came to {@code o}. */
    public long count(Outcome o) { return counts[o.ordinal()].sum(); }

    /** Bad messages, all reasons. */
    public long bad() {
        long n = 0;
        for (Outcome o : Outcome.values()) {
            n += o.bad() ? count(o) : 0;
        }
        return n;
    }

    /** How late the last live message handed over arrived (its sender's clock to this one's), ms; -1 before any. */
    public long lastDelayMillis() { return lastDelayMillis; }

    private static void checkId(String what, String id) {
        if (id != null && (id.isEmpty() || id.length() > MAX_ID_CHARS)) {
            throw new IllegalArgumentException(what + " must have 1 to " + MAX_ID_CHARS + " characters, got "
                    + id.length());
        }
    }

    /** The message's admission; {@link IllegalArgumentException} for values none could hold. */
    private static ReplicaAdmission admission(String requestId, int worker, ReplicaAdmitted a) {
        checkId("workflowId", a.getWorkflowId());
        if (a.getExpectedNextTools().size() > MAX_TOOLS) {
            throw new IllegalArgumentException("expectedNextTools has " + a.getExpectedNextTools().size()
                    + " tools; at most " + MAX_TOOLS);
        }
        for (String tool : a.getExpectedNextTools()) {
            checkId("an expected tool", tool);
        }
        List<Long> tiers = a.getTierTokens();
        if (!tiers.isEmpty() && tiers.size() != Tier.COUNT) {
            throw new IllegalArgumentException("tierTokens has " + tiers.size() + " entries; expected none or "
                    + Tier.COUNT);
        }
        long[] tierTokens = tiers.isEmpty() ? null : new long[Tier.COUNT];
        for (int t = 0; tierTokens != null && t < Tier.COUNT; t++) {
            tierTokens[t] = tiers.get(t);
            if (tierTokens[t] < 0) {
                throw new IllegalArgumentException("tierTokens[" + t + "] is negative: " + tierTokens[t]);
            }
        }
        long[] marks = new long[a.getPrefixMarks().size()];
        for (int i = 0; i < marks.length; i++) {
            marks[i] = a.getPrefixMarks().get(i);
        }
        return new ReplicaAdmission(requestId, worker, a.getPromptTokens(), a.getPredictedOutputTokens(),
                a.getPrefillTokens(), tierTokens, PrefixMarks.ofMarks(marks, a.getPrefixMarkTokens()), a.getWorkflowId(),
                a.getExpectedNextTools());
    }

    private Outcome bad(Outcome reason, Supplier<String> where, String message) {
        if (badLog.allow()) {
            log.warn("{}: bad message {} ({}): {}", path, where.get(), reason.name().toLowerCase(), message);
        }
        return reason;
    }
}
