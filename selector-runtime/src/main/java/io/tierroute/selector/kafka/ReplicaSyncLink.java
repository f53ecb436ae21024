package io.tierroute.selector.kafka;

import io.tierroute.selector.config.KafkaSettings;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.sync.ReplicaSync;

import java.time.Duration;
import java.util.UUID;

/**
 * A selector's replica sync over Kafka, started and stopped as one: its {@link ReplicaSync}, the
 * {@link ReplicaSyncPublisher} that carries this replica's messages and the {@link ReplicaSyncConsumer} that brings
 * the others'. Each start draws a new replica id, so a restarted replica hears what its previous run sent.
 */
public final class ReplicaSyncLink implements AutoCloseable {

    private final String replicaId;
    private final ReplicaSync sync;
    private final ReplicaSyncPublisher publisher;
    private final ReplicaSyncConsumer consumer;

    private ReplicaSyncLink(String replicaId, ReplicaSync sync, ReplicaSyncPublisher publisher,
                            ReplicaSyncConsumer consumer) {
        this.replicaId = replicaId;
        this.sync = sync;
        this.publisher = publisher;
        this.consumer = consumer;
    }

    /**
     * Starts the consumer and publisher, waits up to {@code assignTimeout} for the consumer to be positioned (it reads
     * back the lookback from there, while the selector already routes), then installs the sync on the selector.
     */
    public static ReplicaSyncLink start(KafkaSettings settings, Selector selector, Duration assignTimeout)
            throws InterruptedException {
        String replicaId = UUID.randomUUID().toString();
        ReplicaSyncPublisher publisher = new ReplicaSyncPublisher(settings, replicaId, selector.registry());
        ReplicaSync sync = new ReplicaSync(selector, publisher, System::nanoTime,
                settings.replicaSync().pendingMaxAge(), ReplicaSync.DEFAULT_MAX_PENDING);
        ReplicaSyncConsumer consumer = new ReplicaSyncConsumer(settings, replicaId, selector.registry(), sync);
        ReplicaSyncLink link = new ReplicaSyncLink(replicaId, sync, publisher, consumer);
        try {
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
            link.close();
            throw e;
        }
    }

    public String replicaId() { return replicaId; }
    public ReplicaSync sync() { return sync; }
    public ReplicaSyncPublisher publisher() { return publisher; }
    public ReplicaSyncConsumer consumer() { return consumer; }

    /** Stops telling the other replicas, then hearing them. */
    @Override
    public void close() {
        sync.uninstall();
        consumer.close();
        publisher.close();
    }
}
