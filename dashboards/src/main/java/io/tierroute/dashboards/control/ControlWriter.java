package io.tierroute.dashboards.control;

import io.tierroute.dashboards.history.SnapshotHistory;
import io.tierroute.dashboards.history.VersionRecord;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.SnapshotControl;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes pin / unpin / rollback records to {@code tierroute.control} (key = scope), checked against
 * a {@link SnapshotHistory} that a {@link io.tierroute.dashboards.history.HistoryReader} keeps
 * current:
 *
 * <ul>
 *   <li>pin: the version must be in the history and ACCEPTED (an unknown, rejected or unvalidated
 *       version is refused with the reason), and not the one the scope is pinned to already;</li>
 *   <li>rollback: pins the highest accepted version below the active one;</li>
 *   <li>unpin: names the pinned version (DESIGN.md §5: it stays active until the job publishes after
 *       seeing the unpin); refused when the scope is not pinned.</li>
 * </ul>
 *
 * Each record carries the actor and reason, and sequence = the scope's last applied sequence + 1.
 * Writes are serialized, and each one waits until the history has read it back, so the next
 * write's sequence is right. Refusals are {@link ControlRefusedException}s.
 */
public final class ControlWriter implements AutoCloseable {

    static final int MAX_TEXT = 500;
    private static final long READ_BACK_MS = 15_000;

    private final SnapshotHistory history;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Clock clock;

    /** What was written, with the actor the record carries. */
    public record Written(String scope, String action, Long version, long sequence, Long previousActive,
                          String actor) {}

    public ControlWriter(String bootstrapServers, SnapshotHistory history) {
        this(bootstrapServers, history, new Properties());
    }

    /**
     * @param clientProperties extra Kafka producer settings (security.protocol, sasl.*, ssl.* ...): the
     *                         operator's credentials on a broker whose ACLs guard tierroute.control
     */
    public ControlWriter(String bootstrapServers, SnapshotHistory history, Properties clientProperties) {
        this(bootstrapServers, history, Clock.systemUTC(), clientProperties);
    }

    ControlWriter(String bootstrapServers, SnapshotHistory history, Clock clock, Properties clientProperties) {
        this.history = history;
        this.clock = clock;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "tierroute-dashboard-control");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "15000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.putAll(clientProperties);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Pins {@code scope} to {@code version}. */
    public synchronized Written pin(String scope, long version, String actor, String reason) {
        checkWho(actor, reason);
        checkReady(scope);
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
        // As an unpin of an unpinned scope: a pin that changes nothing is refused, not recorded as an action.
        if (history.scope(scope).filter(s -> s.pinned() && Long.valueOf(version).equals(s.pinnedVersion())).isPresent()) {
            throw ControlRefusedException.conflict("cannot pin version " + version + " of scope '" + scope
                    + "': the scope is already pinned to it");
        }
        return write(scope, ControlAction.PIN, version, actor, reason);
    }

    /** Pins the highest accepted version below the active one of {@code scope}. */
    public synchronized Written rollback(String scope, String actor, String reason) {
        checkWho(actor, reason);
        checkReady(scope);
        OptionalLong active = history.activeVersion(scope);
        if (active.isEmpty()) {
            throw ControlRefusedException.conflict("cannot roll back scope '" + scope + "': it has no active version");
        }
        OptionalLong previous = history.previousAccepted(scope, active.getAsLong());
        if (previous.isEmpty()) {
            throw ControlRefusedException.conflict("cannot roll back scope '" + scope + "': no accepted version "
                    + "below the active version " + active.getAsLong());
        }
        return write(scope, ControlAction.PIN, previous.getAsLong(), actor, reason);
    }

    /** Unpins {@code scope}: accepted fitted snapshots activate again. */
    public synchronized Written unpin(String scope, String actor, String reason) {
        checkWho(actor, reason);
        checkReady(scope);
        Long pinned = history.scope(scope).filter(s -> s.pinned()).map(s -> s.pinnedVersion()).orElse(null);
        if (pinned == null) {
            throw ControlRefusedException.conflict("cannot unpin scope '" + scope + "': it is not pinned");
        }
        return write(scope, ControlAction.UNPIN, pinned, actor, reason);
    }

    private Written write(String scope, ControlAction action, Long version, String actor, String reason) {
        long before = history.activeVersion(scope).orElse(-1);
        long sequence = history.controlSequence(scope) + 1;
        SnapshotControl c = SnapshotControl.newBuilder().setScope(scope).setAction(action).setVersion(version)
                .setReason(reason.strip()).setActor(actor.strip()).setTimestampMs(clock.millis())
                .setSequence(sequence).build();
        try {
            producer.send(new ProducerRecord<>(Topics.CONTROL, scope.getBytes(StandardCharsets.UTF_8),
                    Codecs.SNAPSHOT_CONTROL.encode(c))).get(20, TimeUnit.SECONDS);
            if (!history.awaitControlSequence(scope, sequence, READ_BACK_MS)) {
                throw new IllegalStateException("wrote " + action + " sequence " + sequence + " of scope '" + scope
                        + "' to " + Topics.CONTROL + " but did not read it back within " + READ_BACK_MS + " ms");
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not write to " + Topics.CONTROL + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + Topics.CONTROL, e);
        }
        return new Written(scope, action.name(), version, sequence, before < 0 ? null : before, actor.strip());
    }

    private void checkReady(String scope) {
        if (!history.ready()) {
            throw ControlRefusedException.conflict("the dashboard is still reading the snapshot history; try again "
                    + "in a moment");
        }
        if (scope == null || scope.isBlank()) {
            throw ControlRefusedException.badRequest("scope must not be empty");
        }
        if (history.scope(scope).isEmpty()) {
            throw ControlRefusedException.conflict("unknown scope '" + scope + "'; known: " + history.scopes());
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
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(5));
    }
}
