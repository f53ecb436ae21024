package io.tierroute.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tierroute.fitter.kvwait.AdmissionWait;
import io.tierroute.fitter.kvwait.KvWaitFit;
import io.tierroute.fitter.kvwait.KvWaitFitter;
import io.tierroute.fitter.kvwait.KvWaitRow;
import io.tierroute.jobs.join.JoinedRow;
import io.tierroute.jobs.join.RequestJoinFunctionAccess;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.RecordCodec;
import io.tierroute.schemas.ReleasedSchemas;
import io.tierroute.schemas.Topics;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.CostBreakdown;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.PredictionSource;
import io.tierroute.schemas.avro.RequestFeatures;
import io.tierroute.schemas.avro.RequestStatus;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.TierTransfer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A decision and its completion, through the real ingest conversion and the join, give the admission wait's row as
 * the simulator's warm-up fit builds it: {@code m = max(0, overflow − HBM-held)} with HBM-held = ISL − p_eff − the
 * non-HBM tiers' hits; KV_used, |A(w)|, d̂, C_prefill and C_queue from the decision; decode, queue and prefill times
 * from the completion. A decision of the released RoutingDecision v1, which has no KV_used, |A(w)| or C_queue, gives no
 * row (its Avro defaults, 0, would make it a control of k's fit), and no latency row either (no queued prefill); a
 * current one with a measured 0 does.
 */
class KvWaitRowBuildingTest {
    static final RecordDecoder DECISIONS = new RecordDecoder(Topics.DECISIONS, "test", 60_000);

    @Test
    void missingKvIsTheOverflowLessThePrefixHeldInHbm() {
        // ISL 10 000, p_eff 4 000 → 6 000 hit, 1 500 of them on CPU and NVMe → 4 500 in HBM
        assertThat(MissingKv.tokens(5_000, 10_000, 4_000, 1_500)).isEqualTo(500.0);
        assertThat(MissingKv.tokens(4_000, 10_000, 4_000, 1_500)).as("held covers it").isZero();
        assertThat(MissingKv.tokens(800, 10_000, 10_000, 0)).as("nothing held").isEqualTo(800.0);
        assertThat(MissingKv.tokens(0, 10_000, 4_000, 0)).as("no overflow").isZero();
        // inconsistent hits (more than the prompt): held counts as 0, never negative
        assertThat(MissingKv.tokens(300, 1_000, 900, 500)).isEqualTo(300.0);
    }

    @Test
    void aDecisionAndItsCompletionGiveTheRowOfTheFit() {
        RoutingDecision d = decision(10_000, 4_000, 5_000, List.of(transfer(Tier.CPU, 1_000), transfer(Tier.NVME, 500)),
            120_000, 7, 321.5, 800.0, 4_200.0, 900.0);
        DecisionRow dr = convert(d);
        assertThat(dr.admission.missingKvTokens).isEqualTo(500.0);
        assertThat(dr.regressors.kvOverflowTokens).as("the regression's column keeps the queued prefill").isEqualTo(5_000 + 64);
        CompletionRow cr = convert(completion(d, 6_000, 3_000, 2_000_000, 150));
        JoinedRow j = RequestJoinFunctionAccess.join(dr, cr);

        KvWaitRow r = j.kvWait();
        assertThat(r).isEqualTo(new KvWaitRow(d.getTimestampMs() + 5_000, 120_000, 321.5, 500, 800.0, 7, 4_200.0,
            900.0, 150, 2_000_000, 6_000, 3_000));
        assertThat(j.realisedUs).as("TTFT of the regression unchanged").isEqualTo(6_000 + 3_000 + 10);
    }

    @Test
    void aDecisionOfTheOlderSchemaGivesNoRow() throws IOException {
        // RoutingDecision v1 has no kvUsedTokens / inFlight / queueUs: Avro reads them as their defaults, 0
        RoutingDecision d = decision(2_000, 2_000, 100, List.of(), 50_000, 3, 128, 10, 1_000, 400);
        Inbound in = decode(v1Bytes(d));
        assertThat(in.isDeadLetter()).isFalse();
        assertThat(in.decision.getFeatures().getKvUsedTokens()).as("what v1 reads").isZero();
        assertThat(in.decision.getCost().getQueueUs()).isZero();
        JoinedRow j = RequestJoinFunctionAccess.join(new InboundSplit.Decisions().convert(in),
            convert(completion(d, 500, 700, 90_000, 40)));
        assertThat(j.kvWait()).as("not a control of k's fit").isNull();
        // nor a latency row: without its queued prefill, the α_p column would put the queue wait on other terms
        assertThat(j.regressors.alphaPColumnKnown()).isFalse();
        JoinedRow current = joined(Codecs.ROUTING_DECISION.encode(d), completion(d, 500, 700, 90_000, 40));
        assertThat(current.regressors.alphaPColumnKnown()).isTrue();
        assertThat(current.regressors.kvOverflowTokens).isEqualTo(100 + 64);
    }

    /**
     * A decision that cut a congested tier off priced the prefix held there as recomputed, but the engine loads what it
     * holds: its p_eff is not what the engine computed, so no latency row; the admission wait's row and the rest stand.
     */
    @Test
    void aDecisionThatCutATierOffGivesNoLatencyRowButItsOtherRows() {
        RoutingDecision d = decision(10_000, 4_000, 5_000, List.of(transfer(Tier.CPU, 1_000)), 120_000, 7, 321.5,
            800.0, 4_200.0, 900.0);
        d.getFeatures().setCutOffTier(Tier.NVME);
        JoinedRow j = joined(Codecs.ROUTING_DECISION.encode(d), completion(d, 6_000, 3_000, 2_000_000, 150));
        assertThat(j.regressors.cutOff()).isTrue();
        assertThat(j.regressors.alphaPColumnKnown()).isFalse();
        assertThat(j.kvWait()).as("the admission wait's row").isNotNull();
        assertThat(j.checkableLatency().pEffTokens()).as("checked with the column at 0").isZero();
        d.getFeatures().setCutOffTier(null);
        JoinedRow whole = joined(Codecs.ROUTING_DECISION.encode(d), completion(d, 6_000, 3_000, 2_000_000, 150));
        assertThat(whole.regressors.alphaPColumnKnown()).isTrue();
        assertThat(whole.regressors.pEffTokens).isEqualTo(4_000);
    }

    /**
     * A null {@code lastWorkerHeldTokens} says "no λ observation taken" from a writer that has the field (v5), "not
     * said" from one that does not: only the latter's return is judged by its completion's cached tokens.
     */
    @Test
    void aWriterWithThePreviousWorkersHoldingTellsNotObservedFromNotSaid() throws IOException {
        RoutingDecision d = decision(2_000, 2_000, 100, List.of(), 50_000, 3, 128, 10, 1_000, 400);
        d.getFeatures().setIdleSinceLastStepMs(30_000L);
        d.getFeatures().setAffinityDecay(0.5);
        assertThat(new InboundSplit.Decisions().convert(decode(v1Bytes(d))).lastWorkerHeldTokens)
            .isEqualTo(DecisionRow.HELD_UNSAID);
        assertThat(joined(v1Bytes(d), completion(d, 500, 700, 90_000, 40)).decay()).as("an older selector's return")
            .isNotNull();
        assertThat(new InboundSplit.Decisions().convert(decode(Codecs.ROUTING_DECISION.encode(d))).lastWorkerHeldTokens)
            .isEqualTo(DecisionRow.HELD_NOT_OBSERVED);
        assertThat(joined(Codecs.ROUTING_DECISION.encode(d), completion(d, 500, 700, 90_000, 40)).decay())
            .as("a v5 return its selector took no observation of").isNull();
        d.getFeatures().setLastWorkerHeldTokens(1_500L);
        assertThat(new InboundSplit.Decisions().convert(decode(Codecs.ROUTING_DECISION.encode(d))).lastWorkerHeldTokens)
            .isEqualTo(1_500L);
    }

    @Test
    void aCurrentDecisionWithNothingResidentOrInFlightIsStillAControl() {
        RoutingDecision d = decision(2_000, 2_000, 100, List.of(), 0, 0, 128, 0, 1_000, 0);
        Inbound in = decode(Codecs.ROUTING_DECISION.encode(d));
        JoinedRow j = RequestJoinFunctionAccess.join(new InboundSplit.Decisions().convert(in),
            convert(completion(d, 500, 700, 90_000, 40)));
        KvWaitRow r = j.kvWait();
        assertThat(r).isNotNull();
        assertThat(r.kvUsedTokens()).isZero();
        assertThat(r.inFlight()).isZero();
        assertThat(AdmissionWait.micros(r.missingKvTokens(), r.kvUsedTokens(), r.inflightDecodeTokens(), r.inFlight(),
            3_000, 0.02)).as("W = 0: a control").isZero();
    }

    @Test
    void decisionsOfTheOlderSchemaLeaveKAsTheCurrentOnesGiveIt() throws IOException {
        // τ₀ 3 000 µs, α 0.02 µs, k 0.5 and a control's excess wait of 1 000 µs in the current decisions; v1 selectors'
        // requests waited 20 000 µs that their missing C_queue would have predicted
        double tau0 = 3_000, alpha = 0.02, k = 0.5;
        List<KvWaitRow> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long kv = 10_000 + 1_000L * i;
            double dHat = 100 + i % 7;
            double overflow = i % 2 == 0 ? 0 : 50 * (i % 11);
            RoutingDecision d = decision(4_000, 4_000, overflow, List.of(), kv, 4, dHat, 400, 2_000, 500);
            double w = AdmissionWait.micros(overflow, kv, 400, 4, tau0, alpha);
            long queueWait = Math.round(500 + 1_000 + k * w);
            long decode = Math.round(dHat * (tau0 + alpha * kv));
            rows.add(joined(Codecs.ROUTING_DECISION.encode(d), completion(d, queueWait, 2_000, decode, 90)).kvWait());
        }
        KvWaitFit current = KvWaitFitter.fit(rows);
        assertThat(current.scale()).isCloseTo(k, within(0.01));
        for (int i = 0; i < 100; i++) {
            RoutingDecision d = decision(4_000, 4_000, 0, List.of(), 20_000, 4, 100, 400, 2_000, 18_500);
            KvWaitRow r = joined(v1Bytes(d), completion(d, 20_000, 2_000, 300_000, 90)).kvWait();
            if (r != null) {
                rows.add(r);
            }
        }
        assertThat(KvWaitFitter.fit(rows)).isEqualTo(current);
    }

    @Test
    void aJoinedRowWithAnUnknownFieldHasNoRow() {
        RoutingDecision d = decision(2_000, 1_000, 100, List.of(), 50_000, 3, 128, 10, 1_000, 0);
        CompletionRow c = convert(completion(d, 500, 700, 90_000, 40));
        c.decodeUs = -1; // a completion restored from state written before the field
        assertThat(RequestJoinFunctionAccess.join(convert(d), c).kvWait()).isNull();
        DecisionRow dr = convert(d);
        dr.admission.inFlight = -1;
        assertThat(RequestJoinFunctionAccess.join(dr, convert(completion(d, 1, 1, 1, 2))).kvWait()).isNull();
        List<KvWaitRow> none = new ArrayList<>();
        assertThat(KvWaitFitter.fit(none).fitted()).isFalse();
    }

    @Test
    void theDecodeStepOfRowsBuiltThisWayIsFitted() {
        List<KvWaitRow> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long kv = 10_000 + 1_000L * i;
            double dHat = 100 + i % 7;
            RoutingDecision d = decision(4_000, 4_000, 0, List.of(), kv, 4, dHat, 400, 2_000, 0);
            long decode = Math.round(dHat * (3_000 + 0.02 * kv));
            rows.add(RequestJoinFunctionAccess.join(convert(d), convert(completion(d, 0, 2_000, decode, 90))).kvWait());
        }
        var fit = KvWaitFitter.fit(rows);
        assertThat(fit.tau0Us()).isCloseTo(3_000, within(5.0));
        assertThat(fit.perKvTokenUs()).isCloseTo(0.02, within(1e-4));
    }

    private static TierTransfer transfer(Tier t, int hit) {
        return TierTransfer.newBuilder().setTier(t).setHitTokens(hit).setTransferUs(10).build();
    }

    private static RoutingDecision decision(int isl, int pEff, double overflow, List<TierTransfer> transfers, long kvUsed,
            int inFlight, double dHat, double sumD, double prefillUs, double queueUs) {
        CostFeatures f = CostFeatures.newBuilder().setPEffTokens(pEff).setRecomputeQuadratic(1).setInflightDecodeTokens(sumD)
            .setInflightDecodeQuadratic(1).setKvOverflowTokens(overflow).setTierTransfers(transfers).setQueueLength(0)
            .setAffinityDecay(0).setIdleSinceLastStepMs(null).setExpectedToolHitFraction(0).setQueuedPrefillTokens(64)
            .setInFlight(inFlight).setKvUsedTokens(kvUsed).build();
        CostBreakdown cost = CostBreakdown.newBuilder().setPrefillUs(prefillUs).setDecodeUs(0).setKvUs(0).setTierUs(0)
            .setHolUs(0).setWorkflowBonusUs(0).setToolsBonusUs(0).setTotalUs(0).setQueueUs(queueUs).build();
        RequestFeatures r = RequestFeatures.newBuilder().setIsl(isl).setModel("m").setLora(null).setWorkflowId(null)
            .setStepIndex(null).setExpectedTool(null).setMaxTokens(1024).setOutputHint(null).setPrefixGroupId(1)
            .setPreviousStepOutputTokens(null).setPredictedOutputTokens(dHat)
            .setPredictionSource(PredictionSource.MAX_TOKENS_HALF).build();
        return RoutingDecision.newBuilder().setRequestId("r1").setSelectorId("s").setTimestampMs(1_700_000_000_000L)
            .setScope("sc").setSnapshotVersion(1).setChosenWorker("w1").setCandidateCount(2).setExplored(false)
            .setCost(cost).setFeatures(f).setRequest(r).build();
    }

    private static CompletionLog completion(RoutingDecision d, long queueWaitUs, long prefillUs, long decodeUs, int out) {
        long t = d.getTimestampMs();
        return CompletionLog.newBuilder().setRequestId(d.getRequestId()).setWorker(d.getChosenWorker())
            .setScope(d.getScope()).setModel("m").setArrivalTimeMs(t).setDispatchedTimeMs(t)
            .setFirstTokenTimeMs(t + 10).setFinishedTimeMs(t + 5_000).setQueueWaitUs(queueWaitUs).setPrefillUs(prefillUs)
            .setTierLoadUs(10).setDecodeUs(decodeUs).setTtftUs(queueWaitUs + prefillUs + 10).setInputTokens(100)
            .setOutputTokens(out).setCachedTokens(List.of(TierTokens.newBuilder().setTier(Tier.HBM).setTokens(5).build()))
            .setStatus(RequestStatus.OK).setStatusDetail(null).setWorkflowId(null).setStepId(null).build();
    }

    /** Single-object bytes of {@code d} as a selector on the released RoutingDecision v1 writes them. */
    private static byte[] v1Bytes(RoutingDecision d) throws IOException {
        Schema v1 = ReleasedSchemas.load("RoutingDecision").get(0);
        assertThat(v1.getField("features").schema().getField("kvUsedTokens")).as("v1 predates the field").isNull();
        byte[] current = Codecs.ROUTING_DECISION.encode(d);
        GenericRecord old = new GenericDatumReader<GenericRecord>(Codecs.ROUTING_DECISION.schema(), v1).read(null,
            DecoderFactory.get().binaryDecoder(current, RecordCodec.HEADER_LENGTH,
                current.length - RecordCodec.HEADER_LENGTH, null));
        return new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old).array();
    }

    /** Through the job's real decoder, as the decisions source reads a Kafka record (overwritten by the next call). */
    private static Inbound decode(byte[] bytes) {
        return DECISIONS.decode(new ConsumerRecord<>(Topics.DECISIONS, 0, 0L, null, bytes), 1_700_000_060_000L);
    }

    private static JoinedRow joined(byte[] decision, CompletionLog c) {
        return RequestJoinFunctionAccess.join(new InboundSplit.Decisions().convert(decode(decision)), convert(c));
    }

    private static DecisionRow convert(RoutingDecision d) {
        Inbound in = new Inbound();
        in.decision = d;
        return new InboundSplit.Decisions().convert(in);
    }

    private static CompletionRow convert(CompletionLog c) {
        Inbound in = new Inbound();
        in.completion = c;
        return new InboundSplit.Completions().convert(in);
    }
}
