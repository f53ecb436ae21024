package io.tierroute.jobs.fit;

import io.tierroute.fitter.snapshot.SnapshotAssembler;
import io.tierroute.jobs.KafkaWiring;
import io.tierroute.schemas.Codecs;
import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.WorkerTierRho;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Keeps a published snapshot within one params record: the producer refuses a record past {@code max.request.size}
 * ({@link KafkaWiring#MAX_REQUEST_BYTES}), and the job, failing on it at every attempt, restarted for ever. Only ρ grows
 * with the fleet (one entry per worker and non-HBM tier, some 60 bytes each: about 60,000 links fill a record, half as
 * many beside a new forest of the largest budget). Past the budget the least busy links are left out, which a reader
 * takes as ρ = 0 (DESIGN: a missing pair means 0), so the links priced as idle are the least busy ones; the caller logs
 * how many. "Busy" is ρ on the tier's BW_t: a link measured against its own, faster reference ({@code
 * referenceBytesPerSecond}) counts as ρ·reference / BW_t, so a full 14 GB/s link on a 1e13 reference (0.0014) is not
 * taken for idler than a 7 GB/s link at 1 %.
 * The gate lists ρ's reasons up to ten of a kind (fitter's RhoCheck); should the reasons still not fit without any ρ,
 * the last ones are counted in one line instead of listed.
 */
final class RecordBudget {
    /** What one snapshot's value may take: the record limit less room for the key, headers and the batch's framing. */
    static final int BYTES = KafkaWiring.MAX_REQUEST_BYTES - 64 * 1024;

    /**
     * @param snapshot       within the budget
     * @param droppedRho     ρ entries left out to get there
     * @param droppedReasons reject/held reasons counted in one line instead of listed
     */
    record Fitted(ParameterSnapshot snapshot, int droppedRho, int droppedReasons) {}

    private RecordBudget() {
    }

    /** {@code s} as is when it fits {@code budget} bytes encoded, else without its lowest ρ entries (order kept). */
    static Fitted fit(ParameterSnapshot s, int budget) {
        int size = size(s);
        if (size <= budget) {
            return new Fitted(s, 0, 0);
        }
        List<WorkerTierRho> rho = s.getRho();
        ParameterSnapshot withoutRho = withRho(s, List.of());
        int base = size(withoutRho);
        if (base > budget) {
            return fitReasons(withoutRho, budget, rho.size());
        }
        // busiest first; ties by worker and tier, so the same links are kept whatever order the entries come in
        double[] busy = onTierBandwidths(s);
        int[] byRho = IntStream.range(0, rho.size()).boxed()
            .sorted(Comparator.<Integer>comparingDouble(i -> -busy[i])
                .thenComparing(i -> rho.get(i).getWorker().toString()).thenComparing(i -> rho.get(i).getTier()))
            .mapToInt(Integer::intValue).toArray();
        double perEntry = (double) (size - base) / rho.size();
        int keep = (int) Math.max(0, Math.min(rho.size() - 1, Math.floor((budget - base) / perEntry)));
        while (true) {
            ParameterSnapshot trimmed = withRho(s, highest(rho, byRho, keep));
            if (keep == 0 || size(trimmed) <= budget) {
                return new Fitted(trimmed, rho.size() - keep, 0);
            }
            keep -= Math.max(1, keep / 100); // entries vary in size (worker names): step down until it fits
        }
    }

    /** Without any ρ and still too large: its reasons, the only other list that grows, cut to what fits. */
    private static Fitted fitReasons(ParameterSnapshot withoutRho, int budget, int droppedRho) {
        List<String> reasons = withoutRho.getRejectReasons();
        int keep = reasons.size();
        while (keep > 0) {
            keep -= Math.max(1, keep / 10);
            List<String> listed = new ArrayList<>(reasons.subList(0, keep));
            listed.add((reasons.size() - keep) + " more reasons, not listed (the record's size limit)");
            ParameterSnapshot cut = ParameterSnapshot.newBuilder(withoutRho).setRejectReasons(listed).build();
            if (size(cut) <= budget) {
                return new Fitted(cut, droppedRho, reasons.size() - keep);
            }
        }
        throw new IllegalStateException("a snapshot without ρ and reasons is still over " + budget + " bytes");
    }

    /** Each ρ entry's ρ on its tier's BW_t in {@code s} (ρ·reference / BW_t where it has its own reference). */
    private static double[] onTierBandwidths(ParameterSnapshot s) {
        Map<Tier, Double> tierBandwidths = SnapshotAssembler.bandwidths(s);
        List<WorkerTierRho> rho = s.getRho();
        double[] busy = new double[rho.size()];
        for (int i = 0; i < busy.length; i++) {
            WorkerTierRho r = rho.get(i);
            Double reference = r.getReferenceBytesPerSecond();
            Double tier = tierBandwidths.get(r.getTier());
            busy[i] = reference == null || tier == null || !(tier > 0) ? r.getRho().getValue()
                : r.getRho().getValue() * reference / tier;
        }
        return busy;
    }

    private static int size(ParameterSnapshot s) {
        return Codecs.PARAMETER_SNAPSHOT.encode(s).length;
    }

    /** The {@code keep} entries of highest ρ, in their original order. */
    private static List<WorkerTierRho> highest(List<WorkerTierRho> rho, int[] byRho, int keep) {
        boolean[] kept = new boolean[rho.size()];
        for (int i = 0; i < keep; i++) {
            kept[byRho[i]] = true;
        }
        List<WorkerTierRho> out = new ArrayList<>(keep);
        for (int i = 0; i < rho.size(); i++) {
            if (kept[i]) {
                out.add(rho.get(i));
            }
        }
        return out;
    }

    private static ParameterSnapshot withRho(ParameterSnapshot s, List<WorkerTierRho> rho) {
        return ParameterSnapshot.newBuilder(s).setRho(rho).build();
    }
}
