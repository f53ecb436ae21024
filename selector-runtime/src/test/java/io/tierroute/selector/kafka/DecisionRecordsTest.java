package io.tierroute.selector.kafka;

import io.tierroute.schemas.avro.CostBreakdown;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierTransfer;
import io.tierroute.selector.scheduling.DistinctBreakdown;
import io.tierroute.selector.scheduling.RouteDecision;
import io.tierroute.selector.scheduling.RouteRequest;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The Avro decision record carries each term and regressor of the chosen worker's breakdown in its own field. */
class DecisionRecordsTest {

    @Test
    void everyTermAndFeatureLandsInItsField() {
        RouteDecision d = new RouteDecision("req-1", "w-0", 0, "default", 3, 1200, 80,
                RouteDecision.PredictionSource.HINT, 431, false, true, 0, DistinctBreakdown.of(1000), List.of());
        RouteRequest request = new RouteRequest("req-1", null, null, null, new int[] {1, 2, 3}, null, null, null, 64, 80,
                null, false);
        RoutingDecision r = DecisionRecords.build("sel-1", "model-x", DecisionRecords.RequestFields.of(request), d, 8, 42L,
                -1L, 77L, 1_700_000_000_000L);

        CostBreakdown c = r.getCost();
        assertThat(List.of(c.getPrefillUs(), c.getDecodeUs(), c.getKvUs(), c.getTierUs(), c.getHolUs(),
                c.getWorkflowBonusUs(), c.getToolsBonusUs(), c.getTotalUs(), c.getQueueUs(), c.getHarmUs(),
                c.getOwnDecodeUs(), c.getKvOverflowHarmUs(), c.getKvWaitUs()))
            .containsExactly(1001.0, 1002.0, 1003.0, 1004.0, 1005.0, 1006.0, 1007.0, 1008.0, 1019.0, 1021.0, 1023.0,
                1027.0, 1028.0);

        CostFeatures f = r.getFeatures();
        assertThat(f.getPEffTokens()).isEqualTo(1010);
        assertThat(f.getRecomputeQuadratic()).isEqualTo(1011.0);
        assertThat(f.getInflightDecodeTokens()).isEqualTo(1012);
        assertThat(f.getInflightDecodeQuadratic()).isEqualTo(1013.0);
        assertThat(f.getKvOverflowTokens()).isEqualTo(1014.0);
        assertThat(f.getQueueLength()).isEqualTo(15);
        assertThat(f.getAffinityDecay()).isEqualTo(0.17);
        assertThat(f.getExpectedToolHitFraction()).isEqualTo(0.18);
        assertThat(f.getQueuedPrefillTokens()).isEqualTo(1020);
        assertThat(f.getInFlight()).isEqualTo(22);
        assertThat(f.getKvUsedTokens()).isEqualTo(1024);
        assertThat(f.getOwnDecodeKvTokenSteps()).isEqualTo(1025.0);
        assertThat(f.getIdleSinceLastStepMs()).as("no earlier step").isNull();
        assertThat(f.getLastWorkerHeldTokens()).as("no earlier step: no previous worker to have held anything").isNull();
        assertThat(f.getCutOffTier()).as("the breakdown's cut-off tier, 2").isEqualTo(Tier.NVME);
        assertThat(f.getTierTransfers()).extracting(TierTransfer::getTier, TierTransfer::getHitTokens,
                TierTransfer::getTransferUs)
            .containsExactly(
                Tuple.tuple(Tier.CPU, 1101, 1111.0),
                Tuple.tuple(Tier.NVME, 1102, 1112.0),
                Tuple.tuple(Tier.REMOTE, 1103, 1113.0));
        assertThat(r.getRequest().getPrefixGroupId()).isEqualTo(42L);
        assertThat(r.getRequest().getPreviousStepOutputTokens()).isEqualTo(431);
        assertThat(r.getCandidateCount()).isEqualTo(8);
        assertThat(r.getExplored()).isFalse();
        assertThat(r.getSpread()).as("the light-load spread changed the pick").isTrue();
    }
}
