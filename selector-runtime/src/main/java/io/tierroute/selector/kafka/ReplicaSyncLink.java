package io.tierroute.selector.kafka;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sync.NumberedTransport;
import io.tierroute.selector.sync.NumberingTransport;
import io.tierroute.selector.sync.ReplicaSync;
import io.tierroute.selector.sync.direct.DirectPath;
import io.tierroute.selector.sync.wire.ReplicaSyncWire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A selector's replica sync over Kafka, started and stopped as one: its {@link ReplicaSync}, the
 * {@link ReplicaSyncPublisher} that carries this replica's messages and the {@link ReplicaSyncConsumer} that brings
 * the others', and the {@link DirectPath} beside them when {@code replicaSync.direct} is set (each message numbered once
 * and sent both ways). Each start draws a new replica id, so a restarted replica hears what its previous run sent.
 */
public final class ReplicaSyncLink implements AutoCloseable {

    private final String replicaId;
    private final ReplicaSync sync;
    private final ReplicaSyncPublisher publisher;
    private final ReplicaSyncConsumer consumer;
    private final DirectPath direct; // null when off

    private ReplicaSyncLink(String replicaId, ReplicaSync sync, ReplicaSyncPublisher publisher,
                            ReplicaSyncConsumer consumer, DirectPath direct) {
        this.direct = direct;
        this.replicaId = replicaId;
        this.sync = sync;
        this.publisher = publisher;
        this.consumer = consumer;
    }

    /** As {@link #start(KafkaSettings, Selector, Duration, UnaryOperator)}, with this process's environment. */
    public static ReplicaSyncLink start(KafkaSettings settings, Selector selector, Duration assignTimeout)
            throws InterruptedException {
        return start(settings, selector, assignTimeout, System::getenv);
    }

    /**
     * Starts the consumer and publisher, waits up to {@code assignTimeout} for the consumer to be positioned (it reads
     * back the lookback from there, while the selector already routes), then installs the sync on the selector.
     */
    public static ReplicaSyncLink start(KafkaSettings settings, Selector selector, Duration assignTimeout,
                                        UnaryOperator<String> env) throws InterruptedException {
        String replicaId = UUID.randomUUID().toString();
        KafkaSettings.Direct directSettings = settings.replicaSync().direct();
        String key = directSettings.enabled() ? directKey(directSettings, env) : null;
        ReplicaSyncPublisher publisher = new ReplicaSyncPublisher(settings, replicaId, selector.registry());
        DirectPath direct = null;
        ReplicaSyncLink link = null;
        try {
            List<NumberedTransport> paths = new ArrayList<>(List.of(publisher));
            if (directSettings.enabled()) {
                direct = DirectPath.open(directSettings, key, new ReplicaSyncWire(replicaId, settings.selectorId(),
                        settings.scope(), selector.registry()));
                paths.add(direct);
            }
            ReplicaSync sync = new ReplicaSync(selector, new NumberingTransport(paths), System::nanoTime,
                    settings.replicaSync().pendingMaxAge(), ReplicaSync.DEFAULT_MAX_PENDING);
            ReplicaSyncConsumer consumer = new ReplicaSyncConsumer(settings, replicaId, selector.registry(), sync);
            link = new ReplicaSyncLink(replicaId, sync, publisher, consumer, direct);
            if (direct != null) {
                direct.start(sync);
            }
            publisher.start();
            consumer.start();
            if (!consumer.awaitAssigned(assignTimeout)) { // not fatal: it keeps trying, and the sync runs meanwhile
                org.slf4j.LoggerFactory.getLogger(ReplicaSyncLink.class).warn("replica sync: not reading {} yet after "
                        + "{} s (its consumer keeps trying); until it does, this replica prices only its own requests "
                        + "and telemetry", io.tierroute.schemas.Topics.REPLICA_SYNC, assignTimeout.toSeconds());
            }
            sync.install();
            return link;
        } catch (InterruptedException | RuntimeException e) {
            if (link != null) {
                link.close();
            } else {
                if (direct != null) {
                    direct.close();
                }
                publisher.close();
            }
            throw e;
        }
    }

    public String replicaId() { return replicaId; }
    public ReplicaSync sync() { return sync; }
    public ReplicaSyncPublisher publisher() { return publisher; }
    public ReplicaSyncConsumer consumer() { return consumer; }
    /** The direct path, or null when off. */
    public DirectPath direct() { return direct; }

    /**
     * The shared key the direct path signs with, from its environment variable; a clear error without one. Called
     * again by {@code KafkaServices.start} before any Kafka part starts, so a missing key fails the start at once.
     */
    static String directKey(KafkaSettings.Direct d, UnaryOperator<String> env) {
        String key = env.apply(d.keyEnv());
        if (key == null || key.isBlank()) {
            throw new IllegalStateException("kafka.replicaSync.direct is set but the environment variable " + d.keyEnv()
                    + " is not: set it to a key of at least 32 characters shared by every replica (the datagrams are "
                    + "signed with it), or remove the direct section");
        }
        if (key.length() < DirectPath.MIN_KEY_CHARS) {
            throw new IllegalStateException("the replica key in " + d.keyEnv() + " has " + key.length()
                    + " characters; at least " + DirectPath.MIN_KEY_CHARS + " are needed (e.g. openssl rand -hex 32)");
        }
        return key;
    }

    /** Stops telling the other replicas, then hearing them; each part whatever the others' close did. */
    @Override
    public void close() {
        PartClosing closing = new PartClosing(org.slf4j.LoggerFactory.getLogger(ReplicaSyncLink.class));
        closing.close("replica sync", sync::uninstall);
        if (direct != null) {
            closing.close("replica sync direct path", direct::close);
        }
        closing.close("replica sync consumer", consumer::close);
        closing.close("replica sync publisher", publisher::close);
        closing.done();
    }
}
