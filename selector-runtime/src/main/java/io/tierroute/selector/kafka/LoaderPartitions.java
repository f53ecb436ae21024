package io.tierroute.selector.kafka;

import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * The partitions of {@code tierroute.params} and {@code tierroute.control} the {@link ParameterLoader}'s consumer
 * reads. A session reads every partition of both ({@link #discover}); while a topic is missing, or the broker does not
 * answer, they are looked up again every second.
 *
 * <p><b>Topics that grow.</b> Both topics are meant to keep one partition, the order of a scope's records. Partitions
 * added to either after the catch-up ({@link PartitionWatch}, looked for as often as the identity) are read from their
 * beginning, so the snapshots and control records whose key hashes there still reach the rule, logged (a WARN that
 * says to go back to one partition) and counted ({@code tierroute_params_partitions_added_total}).
 *
 * <p>Loader thread only, but for {@link #added()}.
 */
final class LoaderPartitions {

    private static final Logger log = LoggerFactory.getLogger(ParameterLoader.class); // the loader's messages, its logger

    private final String bootstrap;
    private final PartitionWatch watch;
    private final BooleanSupplier running;
    private final Runnable afterLookup;
    private final LongConsumer pause;

    /**
     * @param bootstrap   where the consumer connects (for the log)
     * @param watchPeriod how often the topics are asked for partitions added
     * @param running     false once the loader closes
     * @param afterLookup called after each lookup of the topics' partitions (the loader checks its contact)
     * @param pause       waits that many ms, or until the loader closes
     */
    LoaderPartitions(String bootstrap, Duration watchPeriod, BooleanSupplier running, Runnable afterLookup,
            LongConsumer pause) {
        this.bootstrap = bootstrap;
        this.watch = new PartitionWatch(List.of(Topics.PARAMS, Topics.CONTROL), watchPeriod);
        this.running = running;
        this.afterLookup = afterLookup;
        this.pause = pause;
    }

    /** Both topics' partitions; retries every second while a topic is missing. Null when closed. */
    List<TopicPartition> discover(KafkaConsumer<byte[], byte[]> c) {
        boolean warned = false;
        while (running.getAsBoolean()) {
            List<TopicPartition> params = KafkaClients.partitions(c, Topics.PARAMS, Duration.ofSeconds(5));
            // Not both 5 s timeouts when the broker does not answer: the status tells an outage sooner.
            List<TopicPartition> control = params.isEmpty() ? List.of()
                    : KafkaClients.partitions(c, Topics.CONTROL, Duration.ofSeconds(5));
            afterLookup.run();
            if (!params.isEmpty() && !control.isEmpty()) {
                List<TopicPartition> all = new ArrayList<>(params);
                all.addAll(control);
                return all;
            }
            if (!warned) {
                log.warn("params loader: no partitions of {} from {} yet (the broker does not answer, or the topic "
                        + "does not exist); retrying every second",
                        params.isEmpty() ? Topics.PARAMS : Topics.CONTROL, bootstrap);
                warned = true;
            }
            pause.accept(1000);
        }
        return null;
    }

    /**
     * Partitions added to the topics since {@code parts} were assigned, when the watch's period has passed: assigned
     * (added to {@code parts}) and read from their beginning, so what is written there is not lost. But both topics are
     * meant to have one partition (Topics.specs): with more, a scope's records may lie on several, and no reader sees
     * them in the order they were written (a trim's tombstone read before the snapshot it deletes; compaction never
     * pairing them). So the WARN says so.
     */
    void readAdded(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> parts) {
        List<TopicPartition> added = watch.newPartitions(c, parts);
        if (added.isEmpty()) {
            return;
        }
        PartitionWatch.readFromTheBeginning(c, parts, added);
        log.warn("params loader: new partition(s) {} of {} / {}; reading them from their beginning. These topics are "
                + "meant to have one partition: across several, readers no longer see a scope's records in the order "
                + "they were written (deploy/README.md, ProjectTopics)", added, Topics.PARAMS, Topics.CONTROL);
    }

    /** Partitions added to either topic while the loader followed them (any thread). */
    long added() {
        return watch.added();
    }
}
