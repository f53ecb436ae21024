package io.tierroute.selector.sync;

import io.tierroute.selector.index.NaiveReferenceIndex;
import io.tierroute.selector.ingest.DirectIndexWriter;
import io.tierroute.selector.params.ParameterSet;
import io.tierroute.selector.params.ParameterStore;
import io.tierroute.selector.scheduling.ReplicaAdmission;
import io.tierroute.selector.scheduling.ReportedEvent;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import io.tierroute.selector.scheduling.Selector;
import io.tierroute.selector.scheduling.SelectorSettings;
import io.tierroute.selector.scheduling.WorkerSpec;
import io.tierroute.selector.sequences.LoadView;
import io.tierroute.selector.sequences.PrefixMarks;
import io.tierroute.selector.sequences.RequestEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two selector replicas joined by {@link ReplicaSync} over a transport this test delivers by hand, so the order in
 * which each replica hears the other is the test's to choose.
 */
class ReplicaSyncTest {

    private final long[] clock = {1_000_000_000L};

    /** What one replica sent, delivered to another when the test says. */
    private static final class HeldTransport implements ReplicaSync.Transport {
        final List<Object> sent = new ArrayList<>();

        @Override public void admitted(ReplicaAdmission admission) { sent.add(admission); }

        @Override public void event(RequestEvent event) { sent.add(event); }

        void deliverTo(ReplicaSync to, long atNanos) {
            for (Object m : sent) {
                if (m instanceof ReplicaAdmission a) {
                    to.admitted(a, atNanos);
                } else {
                    to.event((RequestEvent) m);
                }
            }
            sent.clear();
        }
    }

    private record Replica(Selector selector, ReplicaSync sync, HeldTransport out) {
        LoadView view(int w) { return selector.inflight().view(w); }
    }

    private Replica replica(boolean ownKv) {
        SelectorSettings settings = SelectorSettings.builder(List.of(WorkerSpec.of("w0", 1_000_000),
                WorkerSpec.of("w1", 1_000_000))).blockSize(16).seed(7L).ownKvAccounting(ownKv).build();
        NaiveReferenceIndex index = new NaiveReferenceIndex(2);
        Selector s = new Selector(settings, index, new DirectIndexWriter(index),
                new ParameterStore(ParameterSet.defaults(2)), () -> clock[0]);
        HeldTransport out = new HeldTransport();
        return new Replica(s, new ReplicaSync(s, out, () -> clock[0], Duration.ofSeconds(30), 1000).install(), out);
    }

    private static RouteRequest request(String id, int tokens, String workflow) {
        int[] t = new int[tokens];
        for (int i = 0; i < t.length; i++) {
            t[i] = i + id.hashCode();
        }
        return new RouteRequest(id, null, null, null, t, null, null, null, 512, 100,
                workflow == null ? null : new RouteRequest.AgentContext(workflow, "0", List.of()), false);
    }

    @Test
    void anotherReplicasAdmissionJoinsThisOnesLoadOnceHeard() throws Exception {
        Replica a = replica(true);
        Replica b = replica(true);
        RouteDecision d = a.selector().route(request("r1", 4096, null)).get();
        int w = d.workerIndex();
        assertThat(b.view(w).inFlight()).as("not heard yet").isZero();

        a.out().deliverTo(b.sync(), clock[0]);

        assertThat(b.view(w).inFlight()).isEqualTo(1);
        assertThat(b.view(w).waiting()).isEqualTo(1);
        assertThat(b.view(w).decodeTokens()).as("d̂ of the other replica's request").isEqualTo(a.view(w).decodeTokens());
        assertThat(b.view(w).kvUsedTokens()).as("its context, counted as the router's own").isEqualTo(4096);
        assertThat(b.sync().admissionsApplied()).isEqualTo(1);
        assertThat(a.sync().admissionsSent()).isEqualTo(1);
    }

    @Test
    void aFirstTokenReportedBeforeTheAdmissionIsHeardWaitsForIt() throws Exception {
        Replica a = replica(true);
        Replica b = replica(true);
        int w = a.selector().route(request("r1", 2048, null)).get().workerIndex();

        // The gateway posts the first token to b, which has not heard of r1 yet.
        assertThat(b.selector().report(new RequestEvent("r1", RequestEvent.Type.FIRST_TOKEN, 1)))
                .isEqualTo(ReportedEvent.RELAYED);
        assertThat(b.sync().pendingEvents()).isEqualTo(1);
        b.out().deliverTo(a.sync(), clock[0]);
        assertThat(a.view(w).waiting()).as("the replica that routed it hears its first token").isZero();

        a.out().deliverTo(b.sync(), clock[0]);
        assertThat(b.view(w).inFlight()).isEqualTo(1);
        assertThat(b.view(w).waiting()).as("the parked first token applied with the admission").isZero();
        assertThat(b.sync().pendingEvents()).isZero();
        assertThat(b.sync().eventsParked()).isEqualTo(1);
    }

    @Test
    void aFinishReportedToEitherReplicaEndsTheRequestOnBothAndTellsItsWorkflowsOutput() throws Exception {
        Replica a = replica(false);
        Replica b = replica(false);
        int w = a.selector().route(request("step0", 2048, "wf")).get().workerIndex();
        a.out().deliverTo(b.sync(), clock[0]);
        assertThat(b.selector().report(new RequestEvent("step0", RequestEvent.Type.FINISHED, 321)))
                .as("b heard the admission: applied there").isEqualTo(ReportedEvent.APPLIED);
        b.out().deliverTo(a.sync(), clock[0]);
        assertThat(a.view(w).inFlight()).isZero();
        assertThat(b.view(w).inFlight()).isZero();

        clock[0] += 1_000_000_000L;
        RouteDecision next = b.selector().route(request("step1", 2048, "wf")).get();
        assertThat(next.previousStepOutputTokens()).as("b knows where and how the workflow's last step ended")
                .isEqualTo(321);
    }

    @Test
    void anAdmissionHeardTwiceCountsOnce() throws Exception {
        Replica a = replica(true);
        Replica b = replica(true);
        int w = a.selector().route(request("r1", 1024, null)).get().workerIndex();
        ReplicaAdmission admission = (ReplicaAdmission) a.out().sent.get(0);
        assertThat(b.sync().admitted(admission, clock[0])).isTrue();
        assertThat(b.sync().admitted(admission, clock[0])).isFalse();
        assertThat(b.view(w).inFlight()).isEqualTo(1);
        assertThat(b.sync().admissionsRepeated()).isEqualTo(1);
    }

    @Test
    void anEventNoReplicaRoutedWaitsOutItsAgeAndIsCounted() {
        Replica b = replica(true);
        assertThat(b.selector().report(new RequestEvent("nobody", RequestEvent.Type.FINISHED, 3)))
                .isEqualTo(ReportedEvent.RELAYED);
        assertThat(b.sync().pendingEvents()).isEqualTo(1);
        clock[0] += Duration.ofSeconds(31).toNanos();
        b.sync().expire();
        assertThat(b.sync().pendingEvents()).isZero();
        assertThat(b.sync().unmatchedEvents()).isEqualTo(1);
    }

    @Test
    void anEventAfterItsRequestEndedHereIsLateNotParked() throws Exception {
        Replica a = replica(true);
        Replica b = replica(true);
        a.selector().route(request("r1", 1024, null)).get();
        a.out().deliverTo(b.sync(), clock[0]);
        b.sync().event(new RequestEvent("r1", RequestEvent.Type.FINISHED, 9));
        // Progress posted to a before the finish, carried after it.
        b.sync().event(new RequestEvent("r1", RequestEvent.Type.TOKENS, 8));
        assertThat(b.sync().lateEvents()).isEqualTo(1);
        assertThat(b.sync().pendingEvents()).isZero();
        a.selector().report(new RequestEvent("r1", RequestEvent.Type.FINISHED, 9));
        assertThat(a.selector().report(new RequestEvent("r1", RequestEvent.Type.TOKENS, 8)))
                .isEqualTo(ReportedEvent.RELAYED);
        assertThat(a.sync().lateEvents()).as("ended on the replica that routed it too").isEqualTo(1);
        assertThat(a.sync().pendingEvents()).isZero();
    }

    @Test
    void aRetryKeepingItsIdTakesTheEventsHeardBeforeItsAdmissionButNotTheEndedOnesLateProgress() {
        Replica b = replica(true);
        ReplicaAdmission x = new ReplicaAdmission("X", 0, 1000, 100, 1000, null, PrefixMarks.NONE, null, List.of());
        assertThat(b.sync().admitted(x, clock[0])).isTrue();
        b.sync().event(new RequestEvent("X", RequestEvent.Type.FAILED, 0)); // the first attempt ends
        clock[0] += 500_000_000L;
        b.sync().event(new RequestEvent("X", RequestEvent.Type.TOKENS, 16)); // its progress, carried after the failure
        long retried = clock[0] += 500_000_000L; // another replica admits the retry, id kept
        clock[0] += 100_000_000L;
        // Its first token and finish reach b before its admission does.
        b.sync().event(new RequestEvent("X", RequestEvent.Type.FIRST_TOKEN, 1));
        b.sync().event(new RequestEvent("X", RequestEvent.Type.FINISHED, 10));
        assertThat(b.sync().lateEvents()).as("taken as late while the id is ended here").isEqualTo(3);
        assertThat(b.sync().pendingEvents()).isZero();

        clock[0] += 100_000_000L;
        assertThat(b.sync().admitted(x, retried)).isTrue();
        assertThat(b.selector().inflight().size()).as("the retry's own finish applied").isZero();
        assertThat(b.view(0).waiting()).isZero();
        assertThat(b.sync().lateEventsReused()).as("the first token and finish; not the progress before it").isEqualTo(2);
        assertThat(b.sync().lateEvents()).isEqualTo(3);
        assertThat(b.sync().unmatchedEvents()).isZero();
    }

    @Test
    void anIdUsedAgainAtOnceEndsWithItsEarlyEvents() {
        // The audit's sequence: every message at one moment but the first attempt's.
        Replica b = replica(true);
        ReplicaAdmission x = new ReplicaAdmission("X", 0, 1000, 100, 1000, null, PrefixMarks.NONE, null, List.of());
        b.sync().admitted(x, clock[0]);
        b.sync().event(new RequestEvent("X", RequestEvent.Type.FAILED, 0));
        clock[0] += 1_000_000_000L;
        b.sync().event(new RequestEvent("X", RequestEvent.Type.FIRST_TOKEN, 1));
        b.sync().event(new RequestEvent("X", RequestEvent.Type.FINISHED, 10));
        b.sync().admitted(x, clock[0]);
        assertThat(b.selector().inflight().size()).isZero();
        assertThat(b.sync().lateEventsReused()).isEqualTo(2);
    }

    @Test
    void lateEventsNoAdmissionTakesWaitOutTheAgeWithoutCountingAsUnmatched() throws Exception {
        Replica a = replica(true);
        Replica b = replica(true);
        a.selector().route(request("r1", 1024, null)).get();
        a.out().deliverTo(b.sync(), clock[0]);
        b.sync().event(new RequestEvent("r1", RequestEvent.Type.FINISHED, 9));
        b.sync().event(new RequestEvent("r1", RequestEvent.Type.TOKENS, 8));
        clock[0] += Duration.ofSeconds(31).toNanos();
        b.sync().expire();
        assertThat(b.sync().unmatchedEvents()).isZero();
        assertThat(b.sync().lateEvents()).isEqualTo(1);
        assertThat(b.sync().lateEventsReused()).isZero();
    }

    @Test
    void anAdmissionOlderThanTheRequestMaxAgeIsNotTaken() throws Exception {
        Replica a = replica(true);
        Replica b = replica(true);
        a.selector().route(request("old", 1024, null)).get();
        ReplicaAdmission admission = (ReplicaAdmission) a.out().sent.get(0);
        long maxAge = b.selector().settings().requestMaxAge().toNanos();
        assertThat(b.sync().admitted(admission, clock[0] - maxAge - 1)).isFalse();
        assertThat(b.sync().admissionsExpired()).isEqualTo(1);
        assertThat(b.selector().inflight().size()).isZero();
        b.sync().event(new RequestEvent("old", RequestEvent.Type.FINISHED, 1));
        assertThat(b.sync().lateEvents()).as("its events are late, not unmatched").isEqualTo(1);
    }

    @Test
    void anAdmissionKeepsItsOwnTierTokensAndRefusesWhatNoRouteCouldAdmit() {
        long[] scratch = {0, 512, 0, 0};
        ReplicaAdmission a = new ReplicaAdmission("r", 0, 2048, 100, 1024, scratch, PrefixMarks.NONE, null, List.of());
        scratch[1] = 9999; // the route thread's next attempt
        assertThat(a.tierTokens()).containsExactly(0, 512, 0, 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReplicaAdmission("r", 0,
                RouteRequest.MAX_INPUT_TOKENS + 1, 1, 0, null, PrefixMarks.NONE, null, List.of()))
                .hasMessageContaining("at most");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReplicaAdmission("r", 0, 100, 1, 101, null,
                PrefixMarks.NONE, null, List.of())).hasMessageContaining("prefill");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReplicaAdmission("r", 0, 100, 1, 0,
                new long[] {0, 60, 60, 0}, PrefixMarks.NONE, null, List.of())).hasMessageContaining("tier tokens");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReplicaAdmission("r", 0, 100, 1, 0,
                new long[] {0, 1}, PrefixMarks.NONE, null, List.of())).hasMessageContaining("expected 4");
    }

    @Test
    void eachTierCountMustLieWithinThePrompt() {
        // One count beyond the prompt beside zeros: min(count, prompt) summed to the prompt and passed.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReplicaAdmission("r", 0, 1000, 1, 0,
                new long[] {0, Long.MAX_VALUE, 0, 0}, PrefixMarks.NONE, null, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tierTokens[1] must be 0 to");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReplicaAdmission("r", 0, 1000, 1, 0,
                new long[] {0, 0, 1001, 0}, PrefixMarks.NONE, null, List.of())).hasMessageContaining("tierTokens[2]");
        assertThat(new ReplicaAdmission("r", 0, 1000, 1, 0, new long[] {0, 1000, 0, 0}, PrefixMarks.NONE, null,
                List.of()).tierTokens()).as("the whole prompt on one tier").containsExactly(0, 1000, 0, 0);
    }

    @Test
    void withoutSyncAnUnknownEventChangesNothingAndSaysSo() {
        Replica b = replica(true);
        b.sync().uninstall();
        assertThat(b.selector().report(new RequestEvent("nobody", RequestEvent.Type.FINISHED, 3)))
                .isEqualTo(ReportedEvent.UNKNOWN);
        assertThat(b.out().sent).isEmpty();
    }
}
