package io.tierroute.dashboards.control;

import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import org.apache.kafka.common.KafkaException;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Writes pin / unpin / rollback records to {@code tierroute.control} (key = scope#sequence), checked against
 * a {@link SnapshotHistory} that a {@link io.tierroute.dashboards.history.HistoryReader} keeps
 * current:
 *
 * <ul>
 *   <li>pin: the version must be in the history and ACCEPTED (an unknown, rejected or unvalidated
 *       version is refused with the reason), and not the one the scope is pinned to already;</li>
 *   <li>rollback: pins the version that was active before the active one, never one an operator rolled back from
 *       ({@link SnapshotHistory#rollbackTarget}, as {@code tierroute snapshots rollback} picks it);</li>
 *   <li>unpin: names the pinned version (DESIGN.md §5: it stays active until the job publishes after
 *       seeing the unpin); refused when the scope is not pinned.</li>
 * </ul>
 *
 * Each record carries the actor and reason, and sequence = the scope's last committed sequence + 1, or higher when a
 * snapshot is stamped with a higher one (a control topic recreated: {@link SnapshotHistory#nextControlSequence}); a
 * scope whose next would pass {@link ControlRecordCheck#MAX_SEQUENCE} is refused (409, its control sequence exhausted).
 * Each write first fences every other writer of the scope ({@link ControlFence}: the CLI, another
 * dashboard), then waits until the history holds every committed record of the scope, decides from
 * it, commits, and waits until the history has read the record back. A writer fenced meanwhile
 * answers 409 with nothing written. Refusals are {@link ControlRefusedException}s; a write committed but not read
 * back in time, or whose commit the broker did not confirm, is a {@link ControlUnconfirmedException} (it stands, or
 * may: never "nothing was written").
 *
 * <p><b>Kafka unreachable.</b> While the history reader has no contact with Kafka (its {@code kafkaOutage}), a write
 * is refused at once, 503, saying so and that nothing was written, rather than after the fence's Kafka timeout; one
 * made before the reader has noticed the outage fails on that timeout (10 s) with the same words. A 409 "still
 * reading" is only for a history not yet read from a Kafka that answers, and says what the reader waits for when it
 * knows (a topic that does not exist: deleted under the dashboard, or not created yet).
 */
public final class ControlWriter implements AutoCloseable {

    static final int MAX_TEXT = 500;
    private static final long READ_BACK_MS = 15_000;
    private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(10);

    private final String bootstrapServers;
    private final Properties clientProperties;
    private final SnapshotHistory history;
    private final Clock clock;
    private final Supplier<String> kafkaOutage;
    private final Supplier<String> readerProblem;
    private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    /** What was written, with the actor the record carries. */
    public record Written(String scope, String action, Long version, long sequence, Long previousActive,
                          String actor) {}

    /** The record a write decided on, from the caught-up history. */
    private record Decision(ControlAction action, long version) {}

    public ControlWriter(String bootstrapServers, SnapshotHistory history) {
        this(bootstrapServers, history, new Properties());
    }

    /**
     * @param clientProperties extra Kafka client settings (security.protocol, sasl.*, ssl.* ...): the
     *                         operator's credentials on a broker whose ACLs guard tierroute.control
     */
    public ControlWriter(String bootstrapServers, SnapshotHistory history, Properties clientProperties) {
        this(bootstrapServers, history, clientProperties, () -> null, () -> null);
    }

    /**
     * @param kafkaOutage what the history's reader says while it has no contact with Kafka ({@code no connection to
     *                    Kafka at HOST:PORT since ...}), null while in contact: writes are refused meanwhile
     * @param readerProblem what the history's reader says is wrong ({@code topic tierroute.control does not exist yet
     *                      on HOST:PORT}), or null: quoted when a write is refused because the history is not read
     */
    public ControlWriter(String bootstrapServers, SnapshotHistory history, Properties clientProperties,
                         Supplier<String> kafkaOutage, Supplier<String> readerProblem) {
        this(bootstrapServers, history, Clock.systemUTC(), clientProperties, kafkaOutage, readerProblem);
    }

    ControlWriter(String bootstrapServers, SnapshotHistory history, Clock clock, Properties clientProperties,
                  Supplier<String> kafkaOutage, Supplier<String> readerProblem) {
        this.readerProblem = readerProblem;
        this.bootstrapServers = bootstrapServers;
        this.clientProperties = new Properties();
        this.clientProperties.putAll(clientProperties);
        this.history = history;
        this.clock = clock;
        this.kafkaOutage = kafkaOutage;
    }

    /** Pins {@code scope} to {@code version}. */
    public Written pin(String scope, long version, String actor, String reason) {
        checkWho(actor, reason);
        checkReady(scope);
        return fenced(scope, actor, reason, () -> {
            Optional<VersionRecord> v = history.version(scope, version);
            if (v.isEmpty()) {
                throw ControlRefusedException.conflict("cannot pin version " + version + " of scope '" + scope
                        + "': the version is unknown (not on " + Topics.PARAMS + ", or older than the history kept)");
            }
            if (v.get().rejected()) {
                throw ControlRefusedException.conflict("cannot pin version " + version + " of scope '" + scope
                        + "': it was REJECTED by the validation gate (" + String.join("; ", v.get().rejectReasons())
                        + ") and can never be active");
            }
            if (!v.get().accepted()) {
                throw ControlRefusedException.conflict("cannot pin version " + version + " of scope '" + scope
                        + "': its status is " + v.get().status() + ", only ACCEPTED versions can be active");
            }
            if (!v.get().usable()) {
                throw ControlRefusedException.conflict("cannot pin version " + version + " of scope '" + scope
                        + "': selectors cannot use it (" + v.get().unusable() + "); pinned, they would keep serving "
                        + "the version they serve now");
            }
            // As an unpin of an unpinned scope: a pin that changes nothing is refused, not recorded as an action.
            if (history.scope(scope).filter(s -> s.pinned() && Long.valueOf(version).equals(s.pinnedVersion())).isPresent()) {
                throw ControlRefusedException.conflict("cannot pin version " + version + " of scope '" + scope
                        + "': the scope is already pinned to it");
            }
            return new Decision(ControlAction.PIN, version);
        });
    }

    /**
     * Pins the version of {@code scope} that was active before the active one ({@link SnapshotHistory#rollbackTarget}:
     * older than it, accepted, and never a version an operator rolled back from). With {@code from} (the active
     * version the operator saw) it is refused once another version is active: two operators who each roll back
     * the same bad snapshot move the scope back once, not twice.
     */
    public Written rollback(String scope, Long from, String actor, String reason) {
        checkWho(actor, reason);
        checkReady(scope);
        return fenced(scope, actor, reason, () -> {
            OptionalLong active = history.activeVersion(scope);
            if (active.isEmpty()) {
                throw ControlRefusedException.conflict("cannot roll back scope '" + scope + "': it has no active version");
            }
            if (from != null && from != active.getAsLong()) {
                // A version the history never held was not active a moment ago: a typo, not a race with another operator.
                throw ControlRefusedException.conflict("cannot roll back scope '" + scope + "' from version " + from
                        + ": version " + active.getAsLong() + " is active now" + (history.version(scope, from).isPresent()
                        ? " (rolled back or pinned meanwhile?)" : "; scope '" + scope + "' has no version " + from));
            }
            OptionalLong previous = history.servableRollbackTarget(scope);
            if (previous.isEmpty()) {
                throw ControlRefusedException.conflict("cannot roll back scope '" + scope + "': no accepted version "
                        + "below the active version " + active.getAsLong() + " that selectors can use and was not "
                        + "rolled back from");
            }
            return new Decision(ControlAction.PIN, previous.getAsLong());
        });
    }

    /** Rolls back from whichever version is active ({@link #rollback(String, Long, String, String)}). */
    public Written rollback(String scope, String actor, String reason) {
        return rollback(scope, null, actor, reason);
    }

    /** Unpins {@code scope}: accepted fitted snapshots activate again. */
    public Written unpin(String scope, String actor, String reason) {
        checkWho(actor, reason);
        checkReady(scope);
        return fenced(scope, actor, reason, () -> {
            Long pinned = history.scope(scope).filter(s -> s.pinned()).map(s -> s.pinnedVersion()).orElse(null);
            if (pinned == null) {
                throw ControlRefusedException.conflict("cannot unpin scope '" + scope + "': it is not pinned");
            }
            return new Decision(ControlAction.UNPIN, pinned);
        });
    }

    /**
     * Decides on the history as it is (a refusal fences nobody), then fences the scope's other writers, waits for the
     * history to hold every committed record, decides again and commits. One write per scope at a time in this
     * process: a second is refused at once rather than holding a server thread through the first one's Kafka calls.
     */
    private Written fenced(String scope, String actor, String reason, Supplier<Decision> decide) {
        checkSequenceLeft(scope, history.nextControlSequence(scope));
        decide.get();
        ReentrantLock lock = locks.computeIfAbsent(scope, k -> new ReentrantLock());
        if (!lock.tryLock()) {
            throw ControlRefusedException.conflict("another write to scope '" + scope + "' is in progress on this "
                    + "dashboard; reload and retry");
        }
        try {
            return fencedLocked(scope, actor, reason, decide);
        } finally {
            lock.unlock();
        }
    }

    private Written fencedLocked(String scope, String actor, String reason, Supplier<Decision> decide) {
        try (ControlFence fence = ControlFence.open(bootstrapServers, clientProperties, scope, KAFKA_TIMEOUT,
                "tierroute-dashboard-control")) {
            long committed = ControlFence.lastSequence(bootstrapServers, clientProperties, scope, KAFKA_TIMEOUT);
            // Sequences only grow within a scope, and none can be added behind the fence: reaching it is holding all.
            if (!history.awaitControlSequence(scope, committed, READ_BACK_MS)) {
                throw new IllegalStateException("the history did not reach control sequence " + committed + " of scope '"
                        + scope + "' within " + READ_BACK_MS + " ms; nothing was written: retry");
            }
            // A snapshot trim writes no control record: the history must also hold the params records committed before
            // the fence opened (a trim's deletions, also those behind an open job transaction), or it could pin a
            // version just deleted.
            ControlFence.ParamsEnds ends = ControlFence.paramsEnds(bootstrapServers, clientProperties, scope,
                    KAFKA_TIMEOUT);
            if (!history.awaitParamsPosition(ends.mustHold(), READ_BACK_MS)) {
                throw new IllegalStateException("the history did not reach offset " + ends.mustHold() + " of "
                        + Topics.PARAMS + " within " + READ_BACK_MS + " ms" + (ends.scopeDeletionsPending()
                        ? " (a snapshot trim's deletions of this scope wait behind an open transaction of the fitting "
                        + "job)" : "") + "; nothing was written: retry");
            }
            long held = history.controlSequence(scope);
            if (held != committed) { // ahead: the topic was recreated under a running dashboard, which re-reads it
                throw new IllegalStateException("the dashboard's history is at control sequence " + held + " of scope '"
                        + scope + "', the topic at " + committed + " (recreated?); nothing was written: the dashboard "
                        + "re-reads a recreated topic within seconds (its status counts historyResets); retry then "
                        + "(README, Snapshots: keep the control topic)");
            }
            long sequence = history.nextControlSequence(scope); // committed + 1, or above a stamp the topic lost
            checkSequenceLeft(scope, sequence);
            Decision d = decide.get();
            long before = history.activeVersion(scope).orElse(-1);
            SnapshotControl c = SnapshotControl.newBuilder().setScope(scope).setAction(d.action()).setVersion(d.version())
                    .setReason(reason.strip()).setActor(actor.strip()).setTimestampMs(clock.millis())
                    .setSequence(sequence).build();
            Written w = new Written(scope, d.action().name(), d.version(), sequence, before < 0 ? null : before,
                    actor.strip());
            String what = d.action() + " of version " + d.version() + " as control sequence " + sequence + " of scope '"
                    + scope + "'";
            try {
                fence.commit(c);
            } catch (ControlFence.Unconfirmed e) { // it may still land: no "nothing was written" from here on
                throw new ControlUnconfirmedException(w, null, "the " + what + " was sent, but " + e.getMessage()
                        + ": do not repeat it; reload and check the scope's last control first", e);
            }
            if (!history.awaitControlSequence(scope, sequence, READ_BACK_MS)) {
                throw new ControlUnconfirmedException(w, true, "the " + what + " was written to " + Topics.CONTROL
                        + ", but not read back within " + READ_BACK_MS + " ms: it stands, do not repeat it; reload to "
                        + "see it", null);
            }
            return w;
        } catch (ControlFence.Fenced e) {
            throw ControlRefusedException.conflict("another writer (the CLI or another dashboard) changed scope '" + scope
                    + "' while this write was made; nothing was written: reload and retry");
        } catch (KafkaException e) {
            Throwable refusal = authorisationIn(e);
            if (refusal != null) {
                throw new IllegalStateException("the broker did not authorise the dashboard's Kafka client to write "
                        + Topics.CONTROL + " (" + refusal.getMessage() + "; it needs WRITE on the topic and WRITE, "
                        + "DESCRIBE on transactional ids with the prefix " + ControlFence.TRANSACTIONAL_ID_PREFIX
                        + "); nothing was written", e);
            }
            throw new IllegalStateException(notWritten(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + Topics.CONTROL, e);
        }
    }

    /**
     * A Kafka failure of a write that committed nothing: every one reaching here came before the commit, or from a
     * commit that was aborted ({@link ControlFence#commit}); a timeout is Kafka not answering (a broker down or paused
     * the reader has not noticed yet).
     */
    private String notWritten(KafkaException e) {
        if (e instanceof ControlFence.UnfinishedRead) { // Kafka answered: a read before the write took too long
            return "Kafka answered, but the check before writing " + e.getMessage() + "; nothing was written: retry shortly";
        }
        if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "Kafka at " + bootstrapServers + " did not answer within " + KAFKA_TIMEOUT.toSeconds() + " s ("
                    + e.getMessage() + "); nothing was written: retry once Kafka answers";
        }
        return "could not write to " + Topics.CONTROL + ": " + e + "; nothing was written";
    }

    private static Throwable authorisationIn(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.apache.kafka.common.errors.AuthorizationException) {
                return t;
            }
        }
        return null;
    }

    private void checkReady(String scope) {
        String outage = kafkaOutage.get();
        if (outage != null) {
            throw ControlRefusedException.unavailable("Kafka is unreachable (" + outage + "); nothing was written: "
                    + "retry once Kafka answers");
        }
        if (!history.ready()) {
            String problem = readerProblem.get();
            throw ControlRefusedException.conflict("the dashboard is still reading the snapshot history from Kafka"
                    + (problem == null ? "; nothing was written: try again in a moment"
                    : " (" + problem + "); nothing was written: try again once it has read it"));
        }
        if (scope == null || scope.isBlank()) {
            throw ControlRefusedException.badRequest("scope must not be empty");
        }
        if (history.scope(scope).isEmpty()) {
            throw ControlRefusedException.notFound("unknown scope '" + scope + "'; known: " + history.scopes());
        }
    }

    /**
     * Refuses a write whose sequence would pass {@link ControlRecordCheck#MAX_SEQUENCE}: every reader ignores such a
     * record, so it would be written and never take effect.
     */
    private static void checkSequenceLeft(String scope, long next) {
        if (next > ControlRecordCheck.MAX_SEQUENCE) {
            throw ControlRefusedException.conflict("cannot write to scope '" + scope + "': its control sequence is "
                    + "exhausted (the last record or snapshot stamp has sequence " + (next - 1) + ", the largest "
                    + "readers take, 2^62: a later one would be ignored by every reader); nothing was written");
        }
    }

    private static void checkWho(String actor, String reason) {
        if (actor == null || actor.isBlank()) {
            throw ControlRefusedException.badRequest("actor must name who acts (a user name)");
        }
        if (reason == null || reason.isBlank()) {
            throw ControlRefusedException.badRequest("reason must say why (it is shown on the dashboards)");
        }
        if (actor.length() > MAX_TEXT || reason.length() > MAX_TEXT) {
            throw ControlRefusedException.badRequest("actor and reason are limited to " + MAX_TEXT + " characters");
        }
        if (ControlText.hasControlCharacter(actor) || ControlText.hasControlCharacter(reason)) {
            throw ControlRefusedException.badRequest("actor and reason must be one line of printable text (no newline, "
                    + "tab or escape): they are shown to other operators");
        }
    }

    @Override
    public void close() {
        // Each write opens and closes its own fence: nothing is held between writes.
    }
}
