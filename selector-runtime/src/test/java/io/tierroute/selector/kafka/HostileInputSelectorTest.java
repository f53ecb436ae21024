package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.ControlAction;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.selector.params.CostParameters;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.protocol.WorkerRegistry;
import io.tierroute.schemas.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.tierroute.selector.kafka.KafkaFixture.await;
import static io.tierroute.selector.kafka.KafkaFixture.control;
import static io.tierroute.selector.kafka.KafkaFixture.fv;
import static io.tierroute.selector.kafka.KafkaFixture.publish;
import static io.tierroute.selector.kafka.KafkaFixture.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The selector's parameter loader fed hostile snapshots and control records on the real topics (the
 * cases {@link ParameterLoaderTest} does not already show): a REJECTED snapshot, +∞ and negative values,
 * a bandwidth ≤ 0, finite values outside the physical bounds (α_p, λ, a bandwidth), a snapshot of another scope, a PIN of a version that does not exist, a duplicated
 * snapshot. None is ever activated; the last good set stays and the refusals are counted.
 */
class HostileInputSelectorTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private KafkaProducer<byte[], byte[]> producer;
    private ParameterLoader loader;

    @BeforeEach
    void setUp() throws Exception {
        KafkaFixture.resetTopics();
        producer = KafkaFixture.producer();
    }

    @AfterEach
    void tearDown() {
        if (loader != null) {
            loader.close();
        }
        producer.close();
    }

    @Test
    void hostileSnapshotsAndControlRecordsNeverBecomeTheActiveSet() throws Exception {
        publish(producer, snapshot("default", 1).build());
        ParameterStore store = new ParameterStore(ParameterSet.defaults(3));
        loader = new ParameterLoader(KafkaFixture.settings(), store,
                new SnapshotConverter(new WorkerRegistry(List.of("w0", "w1", "w2")), CostParameters.DEFAULTS, 0.5)).start();
        assertThat(loader.awaitReady(WAIT)).isTrue();
        assertThat(store.current().version()).isEqualTo(1);

        // REJECTED with otherwise usable values: the activation rule never picks it, nothing is converted.
        publish(producer, snapshot("default", 2).setStatus(SnapshotStatus.REJECTED).build());
        // ACCEPTED but carrying values the selector cannot use: refused as UNUSABLE, the last good set stays.
        // One at a time: the loader converts only the version the activation rule picks, so several read
        // in one poll would be one refusal.
        refused(snapshot("default", 3).setAlphaP(fv(Double.POSITIVE_INFINITY)).build(), 1);
        refused(snapshot("default", 4).setAlphaHo(fv(-1)).build(), 2);
        refused(snapshot("default", 5).setBandwidths(List.of(KafkaFixture.bandwidth(Tier.CPU, 0))).build(), 3);
        // ACCEPTED, finite and positive, but absurd: outside the physical bounds the fitter's gate enforces
        // (a record that never passed the gate, e.g. published by hand): refused the same way.
        refused(snapshot("default", 6).setAlphaP(fv(20_000)).build(), 4); // 20 ms per prompt token
        refused(snapshot("default", 7).setLambda(fv(5)).build(), 5); // a cached prefix living 0.2 s
        refused(snapshot("default", 8).setBandwidths(List.of(KafkaFixture.bandwidth(Tier.CPU, 1e14))).build(), 6);
        assertThat(loader.status().lastError()).as("the operator sees which value and which bounds")
                .contains("version 8", "bandwidths[CPU] = 1E+14 is outside its physical bounds (1000000, 1E+13] bytes/s");
        assertThat(store.current().version()).as("the last good set").isEqualTo(1);
        assertThat(store.current().cost().alphaP()).isEqualTo(1.5);

        // Another scope's snapshot (an unknown scope to this selector) is tracked, never applied here.
        publish(producer, snapshot("elsewhere", 9).setAlphaP(fv(9999)).build());
        await(WAIT, () -> loader.status().scopes().containsKey("elsewhere"), "other scope read");
        assertThat(store.current().version()).isEqualTo(1);
        assertThat(store.current().scope()).isEqualTo("default");

        // A PIN of a version that was never published: no version is active, the loader keeps what it has.
        control(producer, "default", ControlAction.PIN, 999L, 1);
        await(WAIT, () -> loader.controlRecordsRead() == 1, "pin read");
        long read = loader.paramsRecordsRead();
        publish(producer, snapshot("default", 9).build());
        await(WAIT, () -> loader.paramsRecordsRead() == read + 1, "version 9 read");
        assertThat(loader.status().scopes().get("default").pinned()).isTrue();
        assertThat(store.current().version()).as("pinned to a missing version: nothing newer activated").isEqualTo(1);

        // Unpin: the good version 9 (not 2..8) becomes active; a duplicate of it changes nothing.
        control(producer, "default", ControlAction.UNPIN, 999L, 2);
        await(WAIT, () -> store.current().version() == 9, "unpinned: version 9");
        // The store takes the version before the loader counts the swap; the status is published after both.
        await(WAIT, () -> loader.status().appliedVersion() == 9, "version 9's swap counted");
        long swaps = loader.swaps();
        long readBefore = loader.paramsRecordsRead();
        publish(producer, snapshot("default", 9).build());
        await(WAIT, () -> loader.paramsRecordsRead() == readBefore + 1, "duplicate read");
        assertThat(store.current().version()).isEqualTo(9);
        assertThat(loader.swaps()).as("a duplicate of the active version is no new swap").isEqualTo(swaps);
    }

    private void refused(ParameterSnapshot snapshot, long unusableSoFar) throws Exception {
        publish(producer, snapshot);
        await(WAIT, () -> loader.badRecords(Topics.PARAMS, ParameterLoader.BadReason.UNUSABLE) == unusableSoFar,
                "version " + snapshot.getVersion() + " refused as unusable");
    }
}
