package io.tierroute.sim.engine;

import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.sim.policy.Completion;
import io.tierroute.sim.policy.SimRequest;
import io.tierroute.sim.workload.RequestFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recompute preemption as {@link Worker} documents it (and vLLM v1's scheduler does): when a running request needs a
 * block and none can be freed, the most recently admitted running request loses its blocks and goes back to the
 * head of the waiting queue with prompt + generated tokens to recompute; nothing is admitted in the step that
 * preempted.
 *
 * <p>The scenario: 4 HBM blocks of 16 tokens, a 16-token step budget, no CPU tier, 15-token prompts (no full block,
 * so nothing is cached and every recomputed token is computed again). {@code a} (output 19) runs alone for one
 * step, then {@code v} (output 40) joins; {@code c} (output 1) queues once the four blocks are held. After step k
 * (k ≥ 2) a's context is 14 + k and v's 13 + k tokens; at step 19 a computes token 33 and needs a third block,
 * while a and v hold two each: v is preempted having generated 17 tokens (15-token prompt: token 1 from its prefill,
 * 16 decoded), and a, on its 19th and last token, finishes in that step.
 */
class PreemptionRecomputeTest {

    private static final int BS = 16;
    private static final EngineConfig CFG = EngineConfig.builder().workers(1).blockSize(BS).hbmCapacityTokens(4 * BS)
            .cpuCapacityTokens(0).maxBatchedTokens(16).build();
    private static final RequestFactory F = new RequestFactory(CFG.model(), BS);

    private static SimRequest request(String id, long arrival, int output) {
        return F.request(id, arrival, 15, new long[0], output, output, null);
    }

    /** Collects what the worker reports. */
    private static final class Listener implements EngineListener {
        final List<String> finished = new ArrayList<>();
        final List<String> firstTokens = new ArrayList<>();
        @Override public void kvEvent(KvEvent event) {}
        @Override public void firstToken(Sequence s, long now) { firstTokens.add(s.request.id()); }
        @Override public void tokens(Sequence s, long now) {}
        @Override public void finished(Sequence s, long now) { finished.add(s.request.id()); }
    }

    /** Runs one whole step of {@code w} from {@code now} (it must have one to run); returns when it ends. */
    static long step(Worker w, long now) {
        long d = w.startStep(now);
        assertThat(d).as("a step runs").isPositive();
        w.finishStep(now + d);
        return now + d;
    }

    @Test
    void theVictimRequeuesAtTheHeadToRecomputePromptAndGeneratedTokensAndNothingIsAdmittedInThatStep() {
        Listener l = new Listener();
        Worker w = new Worker(0, CFG, l);
        Sequence a = new Sequence(request("a", 0, 19), 0);
        Sequence v = new Sequence(request("v", 0, 40), 0);
        Sequence c = new Sequence(request("c", 0, 1), 0);
        long now = 0;
        w.enqueue(a);
        now = step(w, now);                                  // 1: a prefills 15 tokens
        w.enqueue(v);
        now = step(w, now);                                  // 2: a decodes, v prefills 15
        now = step(w, now);                                  // 3: a holds 2 blocks, v 1
        w.enqueue(c);
        for (int k = 4; k <= 18; k++) {                      // 4–18: a and v hold 2 blocks each, c waits (FCFS)
            now = step(w, now);
            assertThat(c.firstScheduledAt).as("c waits at step " + k).isEqualTo(-1);
        }
        assertThat(w.cache.referenced()).isEqualTo(4);
        assertThat(a.computed).isEqualTo(32);
        assertThat(v.computed).isEqualTo(31);
        assertThat(v.generated).isEqualTo(17);
        assertThat(w.preemptions).isZero();

        // Step 19: a needs its third block; v (admitted last) is preempted.
        long d = w.startStep(now);
        assertThat(d).isPositive();
        assertThat(w.preemptions).isEqualTo(1);
        assertThat(v.preemptions).isEqualTo(1);
        assertThat(a.preemptions).isZero();
        assertThat(v.state).isEqualTo(Sequence.State.WAITING);
        assertThat(v.heldBlocks).isZero();
        assertThat(v.computed).isZero();
        assertThat(v.target).as("recompute target: 15 prompt + 17 generated").isEqualTo(15 + 17);
        assertThat(w.waiting).as("v requeued at the head, ahead of c").containsExactly(v, c);
        assertThat(w.running).containsExactly(a);
        // Nothing admitted in this step, though it could have been: v's first chunk (15 tokens of the 15 left in
        // the budget) needs one block and one is free (a holds 3 of 4).
        assertThat(v.chunk).isZero();
        assertThat(c.chunk).isZero();
        assertThat(w.cache.referenced()).isEqualTo(3);
        assertThat(w.cache.heldByRunning()).as("the victim left the batch's count with its blocks").isEqualTo(3);
        assertThat(w.cache.canReserve(1)).isTrue();
        assertThat(a.chunk).isEqualTo(1);
        assertThat(d).as("a decode-only step at u = 3/4").isEqualTo(Math.round(
                Math.max(1.0, -25.74 * 0.75 * 0.75 + 54.01 * 0.75 + 5.74) * 1000));
        now += d;
        w.finishStep(now);
        assertThat(l.finished).containsExactly("a");

        // Step 20: the head of the queue is v, not c: it is admitted first and takes the whole 16-token budget.
        now = step(w, now);
        assertThat(v.state).isEqualTo(Sequence.State.RUNNING);
        assertThat(v.computed).isEqualTo(16);
        assertThat(c.firstScheduledAt).isEqualTo(-1);
        now = step(w, now);                                  // 21: v's last 16 recomputed tokens, its 18th token
        assertThat(v.computed).isEqualTo(32);
        assertThat(v.generated).isEqualTo(18);
        now = step(w, now);                                  // 22: v decodes, c admitted
        assertThat(c.firstScheduledAt).isPositive();
        while (w.hasRunnableWork()) {
            now = step(w, now);
        }
        assertThat(l.finished).containsExactly("a", "c", "v");
        assertThat(w.cache.heldByRunning()).as("every request left the batch's count").isZero();
        assertThat(l.firstTokens).as("a recompute emits no second first token").containsExactly("a", "v", "c");
        assertThat(v.generated).isEqualTo(40);
        // 15 prompt tokens at first, then 15 + 17 = 32 recomputed
        assertThat(v.computedTokens).isEqualTo(15 + 32);
        assertThat(w.prefillTokens).isEqualTo(15 + 15 + 32 + 15);
    }

    @Test
    void theCompletionLogCountsTheRecomputedPromptAndGeneratedTokens() {
        // The same scenario through the simulator: v arrives during a's first step, c during step 6 (~200 ms; the
        // four blocks are held from step 4, ~108 ms, to step 18).
        List<SimRequest> rs = List.of(request("a", 0, 19), request("v", 1, 40), request("c", 200_000, 1));
        SimResult r = new Simulation(CFG, rs).run(new WorkerScenarioTest.Recorder(), null);
        Completion a = byId(r, "a");
        Completion v = byId(r, "v");
        Completion c = byId(r, "c");
        assertThat(a.preemptions()).isZero();
        assertThat(a.computedTokens()).isEqualTo(15);
        assertThat(v.preemptions()).isEqualTo(1);
        assertThat(v.outputTokens()).isEqualTo(40);
        assertThat(v.computedTokens()).as("15 + (15 prompt + 17 generated)").isEqualTo(47);
        assertThat(c.preemptions()).isZero();
        assertThat(c.computedTokens()).isEqualTo(15);
        assertThat(r.workers().get(0).preemptions()).isEqualTo(1);
        assertThat(r.workers().get(0).prefillTokens()).isEqualTo(15 + 47 + 15);
        // c runs only after v's recompute (v is ahead of it): a finishes with step 19, v's recompute prefills 16
        // tokens in step 20 and 16 in step 21 (prefill only: v is not decoding yet), c is admitted at step 22.
        long prefill16 = Math.round((4.209989e-7 * 16 * 16 + 1.518344e-2 * 16 + 16.50142) * 1000);
        assertThat(c.request().arrivalMicros() + c.queueWaitMicros()).isEqualTo(a.finishMicros() + 2 * prefill16);
    }

    private static Completion byId(SimResult r, String id) {
        return r.completions().stream().filter(x -> x.request().id().equals(id)).findFirst().orElseThrow();
    }
}
