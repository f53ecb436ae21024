package io.tierroute.jobs.fit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierroute.fitter.Estimate;
import io.tierroute.fitter.QualityKind;
import io.tierroute.fitter.bandwidth.LinkKey;
import io.tierroute.fitter.snapshot.FitResults;
import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class RecordBudgetTest {

    /** A snapshot with the ρ of {@code links} workers' CPU links, worker i at ρ = (i % 1000) / 1000. */
    private static ParameterSnapshot withLinks(int links) {
        Map<LinkKey, Estimate> rho = new HashMap<>();
        for (int i = 0; i < links; i++) {
            rho.put(new LinkKey("prefill-pool-a-worker-" + i, "CPU"), new Estimate((i % 1000) / 1000.0,
                OptionalDouble.of(0.01), 500, 0.01, QualityKind.STD_ERROR, 1_700_000_000_000L, 1_700_000_600_000L));
        }
        return new SnapshotAssembler("job", () -> 1_700_000_600_000L)
            .assemble("default", 0, null, new FitResults(null, rho, Map.of(), null, null));
    }

    private static int size(ParameterSnapshot s) {
        return Codecs.PARAMETER_SNAPSHOT.encode(s).length;
    }

    @Test
    void aSnapshotWithinTheBudgetIsLeftAsItIs() {
        ParameterSnapshot s = withLinks(100);
        RecordBudget.Fitted f = RecordBudget.fit(s, RecordBudget.BYTES);
        assertThat(f.snapshot()).isSameAs(s);
        assertThat(f.droppedRho()).isZero();
    }

    @Test
    void pastTheBudgetTheLowestRhoAreLeftOutInTheirOrder() {
        ParameterSnapshot s = withLinks(2_000);
        int budget = size(s) * 3 / 5;
        RecordBudget.Fitted f = RecordBudget.fit(s, budget);
        assertThat(size(f.snapshot())).isLessThanOrEqualTo(budget);
        List<WorkerTierRho> kept = f.snapshot().getRho();
        assertThat(f.droppedRho()).isEqualTo(2_000 - kept.size()).isGreaterThan(500);
        assertThat(kept.size()).as("close to what fits, not far below").isGreaterThan(1_000);
        double lowestKept = kept.stream().mapToDouble(r -> r.getRho().getValue()).min().orElseThrow();
        assertThat(s.getRho()).filteredOn(r -> !kept.contains(r))
            .allSatisfy(r -> assertThat(r.getRho().getValue()).isLessThanOrEqualTo(lowestKept));
        assertThat(s.getRho()).as("kept in the order the snapshot had them").containsSubsequence(kept);
        ParameterSnapshot withoutRho = ParameterSnapshot.newBuilder(s).setRho(kept).build();
        assertThat(f.snapshot()).as("nothing else changed").isEqualTo(withoutRho);
    }

    /**
     * A link on its own reference counts by its byte rate: a full 14 GB/s link whose reference a counter glitch put at
     * 10¹³ bytes/s publishes ρ 0.0014, below 2,000 links at 1 % of the 7 GB/s BW_t, and is still the last to go.
     */
    @Test
    void aLinkOnItsOwnReferenceIsKeptByItsByteRateNotItsRho() {
        Map<LinkKey, Estimate> rho = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            rho.put(new LinkKey("prefill-pool-a-worker-" + i, "NVME"), new Estimate(0.01,
                OptionalDouble.of(0.001), 500, 0.001, QualityKind.STD_ERROR, 1_700_000_000_000L, 1_700_000_600_000L));
        }
        LinkKey glitched = new LinkKey("prefill-pool-a-worker-glitched", "NVME");
        rho.put(glitched, new Estimate(14e9 / 1e13, OptionalDouble.of(1e-5), 500, 1e-5, QualityKind.STD_ERROR,
            1_700_000_000_000L, 1_700_000_600_000L));
        ParameterSnapshot s = new SnapshotAssembler("job", () -> 1_700_000_600_000L).assemble("default", 0, null,
            new FitResults(null, rho, Map.of(), null, null).withRhoReferences(Map.of(glitched, 1e13)));
        RecordBudget.Fitted f = RecordBudget.fit(s, size(s) * 4 / 5);
        assertThat(f.droppedRho()).isPositive();
        assertThat(f.snapshot().getRho()).anySatisfy(r -> {
            assertThat(r.getWorker()).isEqualTo("prefill-pool-a-worker-glitched");
            assertThat(r.getReferenceBytesPerSecond()).isEqualTo(1e13);
        });
    }

    /** The failure mode it prevents: ρ of 80,000 links encode past the 4 MiB the params producer sends. */
    @Test
    void eightyThousandLinksFitOneParamsRecord() {
        ParameterSnapshot s = withLinks(80_000);
        assertThat(size(s)).isGreaterThan(KafkaWiring.MAX_REQUEST_BYTES);
        RecordBudget.Fitted f = RecordBudget.fit(s, RecordBudget.BYTES);
        assertThat(size(f.snapshot())).isLessThanOrEqualTo(RecordBudget.BYTES);
        assertThat(f.droppedRho()).isPositive();
        assertThat(f.snapshot().getRho()).hasSize(80_000 - f.droppedRho());
    }

    /** Reasons that alone outgrow the record (the gate lists ρ's up to ten of a kind; a defence should others grow). */
    @Test
    void reasonsThatAloneOutgrowTheRecordAreCountedInOneLine() {
        List<String> reasons = new java.util.ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            reasons.add("held: rho[prefill-pool-a-worker-" + i + "/CPU] kept at no entry (ρ = 0); fitted 0.4 on 1 samples");
        }
        ParameterSnapshot s = ParameterSnapshot.newBuilder(withLinks(10)).setRejectReasons(reasons).build();
        assertThat(size(s)).isGreaterThan(KafkaWiring.MAX_REQUEST_BYTES);
        RecordBudget.Fitted f = RecordBudget.fit(s, RecordBudget.BYTES);
        assertThat(size(f.snapshot())).isLessThanOrEqualTo(RecordBudget.BYTES);
        assertThat(f.droppedRho()).isEqualTo(10);
        List<String> kept = f.snapshot().getRejectReasons();
        assertThat(f.droppedReasons()).isPositive().isEqualTo(100_000 - (kept.size() - 1));
        assertThat(kept.get(kept.size() - 1)).isEqualTo(f.droppedReasons() + " more reasons, not listed (the record's "
            + "size limit)");
        assertThat(kept.subList(0, kept.size() - 1)).isEqualTo(reasons.subList(0, kept.size() - 1));
    }
}
