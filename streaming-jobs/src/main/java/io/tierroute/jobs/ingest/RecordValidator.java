package io.tierroute.jobs.ingest;

import io.tierroute.fitter.regression.LatencyObservation;
import io.tierroute.schemas.avro.CompletionLog;
import io.tierroute.schemas.avro.CostFeatures;
import io.tierroute.schemas.avro.EngineTelemetry;
import io.tierroute.schemas.avro.RequestFeatures;
import io.tierroute.schemas.avro.RoutingDecision;
import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.snapshot.ControlRecordCheck;
import io.tierroute.schemas.snapshot.SnapshotParameter;
import io.tierroute.schemas.avro.Tier;
import io.tierroute.schemas.avro.TierLinkSample;
import io.tierroute.schemas.avro.TierTokens;
import io.tierroute.schemas.avro.TierTransfer;
import java.util.regex.Pattern;

/**
 * Value checks on decoded records, before they reach a keyed operator: a record that fails one is a
 * dead letter with the returned reason (DESIGN.md §7: NaN or negative values, impossible timestamps,
 * missing keys). Each method returns null when the record is usable. Stateless and thread-safe.
 */
public final class RecordValidator {
    /** 2000-01-01T00:00:00Z: anything earlier is a missing or zero timestamp. */
    public static final long MIN_TIMESTAMP_MS = 946_684_800_000L;
    /**
     * Longest identifier a row carries (worker, scope, engine type, hardware pool, request id, model, LoRA, expected
     * tool), in characters: the figure the selector's HTTP API allows for its ids. Every shuffle and state entry
     * holds these strings, so an unbounded one only costs; 256 UTF-16 chars are at most 768 UTF-8 bytes.
     */
    public static final int MAX_IDENTIFIER_CHARS = 256;
    /**
     * Longest time a completion may report for one of its phases, µs (≈ 2.8 h): what the latency fit takes as a
     * broken timestamp, not a latency. Bounding each phase also keeps their sum, the realised time to first token,
     * from overflowing into a plausible value.
     */
    static final long MAX_PHASE_US = (long) LatencyObservation.MAX_REALISED_US;

    private final long maxFutureSkewMs;
    private final Pattern scopes;

    /** @param maxFutureSkewMs how far past the wall clock an event time may lie */
    public RecordValidator(long maxFutureSkewMs) {
        this(maxFutureSkewMs, null);
    }

    /**
     * @param maxFutureSkewMs how far past the wall clock an event time may lie
     * @param scopes          what every scope the job fits matches in whole ({@code --scopes}); null: any
     */
    public RecordValidator(long maxFutureSkewMs, Pattern scopes) {
        this.maxFutureSkewMs = maxFutureSkewMs;
        this.scopes = scopes;
    }

    public String telemetry(EngineTelemetry t, long nowMs) {
        String r = firstNonNull(
            identifier("worker", t.getWorker()), scope(t.getScope()),
            identifier("engineType", t.getEngineType()), identifier("hardwarePool", t.getHardwarePool()),
            timestamp("timestampMs", t.getTimestampMs(), nowMs));
        if (r != null) {
            return r;
        }
        if (t.getIntervalMs() <= 0) {
            return "intervalMs must be > 0, got " + t.getIntervalMs();
        }
        r = firstNonNull(nonNegative("waitingRequests", t.getWaitingRequests()),
            nonNegative("runningRequests", t.getRunningRequests()), nonNegative("kvUsedBlocks", t.getKvUsedBlocks()),
            nonNegative("kvCapacityBlocks", t.getKvCapacityBlocks()), nonNegative("blockSizeTokens", t.getBlockSizeTokens()),
            nonNegative("prefillTokens", t.getPrefillTokens()), nonNegative("prefillBusyUs", t.getPrefillBusyUs()),
            nonNegative("decodeSteps", t.getDecodeSteps()), nonNegative("decodeBusyUs", t.getDecodeBusyUs()));
        if (r != null) {
            return r;
        }
        for (TierLinkSample l : t.getLinks()) {
            if (l.getTier() == Tier.HBM) {
                return "links: a link sample for tier HBM (links are non-HBM tiers only)";
            }
            if (l.getBytesMoved() < 0) {
                return "links[" + l.getTier() + "].bytesMoved must be >= 0, got " + l.getBytesMoved();
            }
            if (l.getIntervalMs() <= 0) {
                return "links[" + l.getTier() + "].intervalMs must be > 0, got " + l.getIntervalMs();
            }
            // Faster than any link (a running total sent as the interval's count, or bits for bytes): as a peak it
            // would set the tier's BW_t past the gate's bound and get every snapshot of the scope rejected.
            double bytesPerSecond = l.getBytesMoved() * 1000.0 / l.getIntervalMs();
            if (bytesPerSecond > SnapshotParameter.BANDWIDTH.upper()) {
                return "links[" + l.getTier() + "].bytesMoved " + l.getBytesMoved() + " in " + l.getIntervalMs()
                    + " ms is " + String.format(java.util.Locale.ROOT, "%.3g", bytesPerSecond) + " bytes/s, faster "
                    + "than any link (" + String.format(java.util.Locale.ROOT, "%.0g", SnapshotParameter.BANDWIDTH.upper())
                    + "): the bytes of this interval, not a running total?";
            }
        }
        return null;
    }

    public String completion(CompletionLog c, long nowMs) {
        String r = firstNonNull(
            identifier("requestId", c.getRequestId()), identifier("worker", c.getWorker()),
            scope(c.getScope()),
            timestamp("arrivalTimeMs", c.getArrivalTimeMs(), nowMs), timestamp("finishedTimeMs", c.getFinishedTimeMs(), nowMs),
            phase("queueWaitUs", c.getQueueWaitUs()), phase("prefillUs", c.getPrefillUs()),
            phase("tierLoadUs", c.getTierLoadUs()), phase("decodeUs", c.getDecodeUs()),
            nonNegative("inputTokens", c.getInputTokens()), nonNegative("outputTokens", c.getOutputTokens()));
        if (r != null) {
            return r;
        }
        if (c.getFinishedTimeMs() < c.getArrivalTimeMs()) {
            return "finishedTimeMs " + c.getFinishedTimeMs() + " is before arrivalTimeMs " + c.getArrivalTimeMs();
        }
        if (c.getTtftUs() != null && (c.getTtftUs() < 0 || c.getTtftUs() > MAX_PHASE_US)) {
            return "ttftUs must be in [0, " + MAX_PHASE_US + "] or null, got " + c.getTtftUs();
        }
        long cached = 0;
        for (TierTokens tt : c.getCachedTokens()) {
            if (tt.getTokens() < 0) {
                return "cachedTokens[" + tt.getTier() + "] must be >= 0, got " + tt.getTokens();
            }
            cached += tt.getTokens();
        }
        if (cached > c.getInputTokens()) {
            return "cachedTokens sum " + cached + " exceeds inputTokens " + c.getInputTokens();
        }
        return null;
    }

    public String decision(RoutingDecision d, long nowMs) {
        String r = firstNonNull(
            identifier("requestId", d.getRequestId()), scope(d.getScope()),
            identifier("chosenWorker", d.getChosenWorker()), timestamp("timestampMs", d.getTimestampMs(), nowMs),
            nonNegative("snapshotVersion", d.getSnapshotVersion()));
        if (r != null) {
            return r;
        }
        CostFeatures f = d.getFeatures();
        r = firstNonNull(nonNegative("features.pEffTokens", f.getPEffTokens()),
            finiteNonNegative("features.recomputeQuadratic", f.getRecomputeQuadratic()),
            finiteNonNegative("features.inflightDecodeTokens", f.getInflightDecodeTokens()),
            finiteNonNegative("features.inflightDecodeQuadratic", f.getInflightDecodeQuadratic()),
            finiteNonNegative("features.kvOverflowTokens", f.getKvOverflowTokens()),
            nonNegative("features.queuedPrefillTokens", f.getQueuedPrefillTokens()),
            nonNegative("features.queueLength", f.getQueueLength()),
            unit("features.affinityDecay", f.getAffinityDecay()),
            unit("features.expectedToolHitFraction", f.getExpectedToolHitFraction()),
            // the admission wait's inputs (KvWaitRow) and C_own's regressor
            nonNegative("features.inFlight", f.getInFlight()), nonNegative("features.kvUsedTokens", f.getKvUsedTokens()),
            finiteNonNegative("features.ownDecodeKvTokenSteps", f.getOwnDecodeKvTokenSteps()),
            finiteNonNegative("cost.prefillUs", d.getCost().getPrefillUs()),
            finiteNonNegative("cost.queueUs", d.getCost().getQueueUs()));
        if (r != null) {
            return r;
        }
        Long idle = f.getIdleSinceLastStepMs();
        if (idle != null && idle < 0) {
            return "features.idleSinceLastStepMs must be >= 0 or null, got " + idle;
        }
        if (f.getCutOffTier() == Tier.HBM) {
            return "features.cutOffTier: HBM (only a tier loaded over a link is cut off)";
        }
        Long held = f.getLastWorkerHeldTokens();
        if (held != null && (held < 0 || held > d.getRequest().getIsl())) {
            return "features.lastWorkerHeldTokens must be null or within 0..request.isl (" + d.getRequest().getIsl()
                + "), got " + held;
        }
        for (TierTransfer t : f.getTierTransfers()) {
            if (t.getTier() == Tier.HBM) {
                return "features.tierTransfers: an entry for tier HBM";
            }
            if (t.getHitTokens() < 0 || !(t.getTransferUs() >= 0) || Double.isInfinite(t.getTransferUs())) {
                // the field names are built only for a bad entry: this runs for every decision
                String at = "features.tierTransfers[" + t.getTier() + "]";
                return firstNonNull(nonNegative(at + ".hitTokens", t.getHitTokens()),
                    finiteNonNegative(at + ".transferUs", t.getTransferUs()));
            }
        }
        RequestFeatures q = d.getRequest();
        return firstNonNull(identifier("request.model", q.getModel()),
            notTooLong("request.lora", q.getLora()), notTooLong("request.expectedTool", q.getExpectedTool()),
            nonNegative("request.isl", q.getIsl()),
            nonNegative("request.maxTokens", q.getMaxTokens()), optionalNonNegative("request.stepIndex", q.getStepIndex()),
            optionalNonNegative("request.outputHint", q.getOutputHint()),
            optionalNonNegative("request.previousStepOutputTokens", q.getPreviousStepOutputTokens()),
            finiteNonNegative("request.predictedOutputTokens", q.getPredictedOutputTokens()));
    }

    public String control(SnapshotControl c) {
        String r = ControlRecordCheck.problem(c); // the same rule every reader of the control topic applies
        return r != null || scopes == null ? r : fitted(c.getScope());
    }

    /** A record's scope: an identifier, and one this job fits. */
    private String scope(CharSequence v) {
        String r = identifier("scope", v);
        return r != null || scopes == null ? r : fitted(v);
    }

    private String fitted(CharSequence scope) {
        return scopes.matcher(scope).matches() ? null
            : "scope '" + scope + "' is not one this job fits (--scopes " + scopes.pattern() + ")";
    }

    private String timestamp(String field, long ms, long nowMs) {
        if (ms < MIN_TIMESTAMP_MS) {
            return field + " " + ms + " is before 2000-01-01 (a missing timestamp?)";
        }
        if (ms > nowMs + maxFutureSkewMs) {
            return field + " " + ms + " is more than " + maxFutureSkewMs + " ms in the future (now " + nowMs + ")";
        }
        return null;
    }

    /** A required identifier: non-empty and at most {@link #MAX_IDENTIFIER_CHARS} (the reason gives the length only). */
    private static String identifier(String field, CharSequence v) {
        return v == null || v.length() == 0 ? field + " is empty" : notTooLong(field, v);
    }

    /** An identifier that may be null. */
    private static String notTooLong(String field, CharSequence v) {
        return v != null && v.length() > MAX_IDENTIFIER_CHARS
            ? field + " is " + v.length() + " characters long, at most " + MAX_IDENTIFIER_CHARS : null;
    }

    private static String nonNegative(String field, long v) {
        return v < 0 ? field + " must be >= 0, got " + v : null;
    }

    /** A phase of a completion, µs: at least 0, at most {@link #MAX_PHASE_US}. */
    private static String phase(String field, long v) {
        return v < 0 || v > MAX_PHASE_US ? field + " must be in [0, " + MAX_PHASE_US + "] µs, got " + v : null;
    }

    private static String optionalNonNegative(String field, Integer v) {
        return v != null && v < 0 ? field + " must be >= 0 or null, got " + v : null;
    }

    private static String finiteNonNegative(String field, double v) {
        if (!Double.isFinite(v)) {
            return field + " must be finite, got " + v;
        }
        return v < 0 ? field + " must be >= 0, got " + v : null;
    }

    private static String unit(String field, double v) {
        String r = finiteNonNegative(field, v);
        return r != null ? r : v > 1 ? field + " must be <= 1, got " + v : null;
    }

    private static String firstNonNull(String... reasons) {
        for (String r : reasons) {
            if (r != null) {
                return r;
            }
        }
        return null;
    }
}
