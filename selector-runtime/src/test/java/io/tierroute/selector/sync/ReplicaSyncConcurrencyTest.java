package io.tierroute.selector.sync;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.scheduling.ReportedEvent;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The race {@link ReplicaSync}'s lock exists for: another replica's admissions arrive on the consumer thread while a
 * gateway posts the same requests' finishes to this replica on another thread. Whichever comes first, every finish
 * must end its request here: applied at once, or parked and applied with the admission, never parked after the
 * admission has looked for it (the request would then count on its worker until routing.requestMaxAge).
 */
class ReplicaSyncConcurrencyTest {

    private static Selector selector() {
        List<WorkerSpec> specs = List.of(WorkerSpec.of("w0", 100_000_000), WorkerSpec.of("w1", 100_000_000));
        NaiveReferenceIndex index = new NaiveReferenceIndex(2);
        return new Selector(SelectorSettings.builder(specs).blockSize(16).seed(3L).ownKvAccounting(true).build(), index,
                new DirectIndexWriter(index), new ParameterStore(ParameterSet.defaults(2)), System::nanoTime);
    }

    @Test
    void everyFinishEndsItsRequestWhicheverThreadComesFirst() throws Exception {
        int n = 5_000;
        Selector a = selector();
        List<ReplicaAdmission> admissions = new ArrayList<>(n);
        ReplicaSync aSync = new ReplicaSync(a, new ReplicaSync.Transport() {
            @Override public void admitted(ReplicaAdmission admission) { admissions.add(admission); }
            @Override public void event(RequestEvent event) { }
        }, System::nanoTime, Duration.ofSeconds(30), 100_000).install();
        for (int i = 0; i < n; i++) {
            a.route(new RouteRequest("r" + i, null, null, null, new int[] {i, i + 1, i + 2}, null, null, null, 16, 8,
                    null, false)).get();
        }
        assertThat(admissions).hasSize(n);
        assertThat(aSync.admissionsSent()).isEqualTo(n);

        Selector b = selector();
        List<RequestEvent> relayed = new CopyOnWriteArrayList<>();
        ReplicaSync bSync = new ReplicaSync(b, new ReplicaSync.Transport() {
            @Override public void admitted(ReplicaAdmission admission) { }
            @Override public void event(RequestEvent event) { relayed.add(event); }
        }, System::nanoTime, Duration.ofSeconds(30), 100_000).install();
        // In lockstep: the two threads take request i together, so each admission races its own finish.
        CountDownLatch go = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger admittedUpTo = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger reportedUpTo = new java.util.concurrent.atomic.AtomicInteger();
        Thread consumer = new Thread(() -> {
            await(go);
            for (int i = 0; i < n; i++) {
                while (reportedUpTo.get() < i) {
                    Thread.onSpinWait();
                }
                bSync.admitted(admissions.get(i), System.nanoTime());
                admittedUpTo.set(i + 1);
            }
        });
        List<ReportedEvent> answers = new CopyOnWriteArrayList<>();
        Thread gateway = new Thread(() -> {
            await(go);
            for (int i = 0; i < n; i++) {
                while (admittedUpTo.get() < i) {
                    Thread.onSpinWait();
                }
                answers.add(b.report(new RequestEvent("r" + i, RequestEvent.Type.FINISHED, 4)));
                reportedUpTo.set(i + 1);
            }
        });
        consumer.start();
        gateway.start();
        go.countDown();
        consumer.join(60_000);
        gateway.join(60_000);

        assertThat(b.inflight().size()).as("no finish lost between the two threads").isZero();
        for (int w = 0; w < 2; w++) {
            assertThat(b.inflight().view(w).inFlight()).as("nothing left on worker " + w).isZero();
        }
        assertThat(bSync.pendingEvents()).isZero();
        assertThat(bSync.admissionsApplied()).isEqualTo(n);
        assertThat(relayed).as("every finish told to the other replicas").hasSize(n);
        assertThat(answers).hasSize(n).doesNotContain(ReportedEvent.UNKNOWN);
        long parked = answers.stream().filter(r -> r == ReportedEvent.RELAYED).count();
        assertThat(bSync.eventsParked() + bSync.eventsApplied()).as("parked then applied with their admission")
                .isGreaterThanOrEqualTo(parked);
        System.out.printf("replica sync race: %d of %d finishes came before their admission%n", parked, n);
    }

    private static void await(CountDownLatch go) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
