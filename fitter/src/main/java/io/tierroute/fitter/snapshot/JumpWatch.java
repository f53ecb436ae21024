package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.QualityKind;
import java.util.HashMap;
import java.util.Map;

/**
 * The jumps the gate refused for want of overwhelming evidence, each as first seen, so that a real shift is not
 * refused for good. A jump is <b>confirmed</b> when a later fit still jumps the same way from the same active value
 * after as many new rows as overwhelming evidence asks for ({@link GateConfig#overwhelmingSamples()}) came in since it
 * was first seen: the job's regression forgets old rows over a horizon of as many rows by default (20 000,
 * {@code regression-horizon-rows}), so that fit stands mostly on rows the first one never saw, and two fits on
 * (mostly) different data agree that the value in force is wrong. Counting rows, not
 * comparing windows: the estimators' event-time windows start at their first row ever. Without this, one parameter whose
 * error figure never reaches the overwhelming threshold (a quadratic term's rarely does) froze every other parameter
 * of the scope at the last accepted version: a QA run saw 390 rejections in a row. Immutable; the caller keeps the
 * scope's watch from one gate run to the next ({@link #after}).
 *
 * @param seen per parameter label ("alphaP2", "bandwidth[CPU]"), the refused jump as first seen
 */
public record JumpWatch(Map<String, Seen> seen) {

    /** No jump refused so far. */
    public static final JumpWatch NONE = new JumpWatch(Map.of());

    /**
     * A refused jump.
     *
     * @param from    the active value it jumped from
     * @param up      whether it jumped upwards
     * @param samples the sample count of the fit that showed it (the estimator's rows so far)
     * @param kind    the estimator of that fit (its quality kind: the telemetry prior's STD_ERROR, the regression's
     *                R2), or null when not known (a watch restored from state kept before it was), which confirms
     *                with any estimator's fit but makes no carried value a baseline
     */
    public record Seen(double from, boolean up, long samples, QualityKind kind) {}

    /** A jump the gate refused in one run: the parameter's label and how it was seen. */
    public record Refused(String label, Seen seen) {}

    public JumpWatch {
        seen = Map.copyOf(seen);
    }

    /** Whether a fit of {@code label} on {@code samples} rows confirms a jump first seen {@code newRows} rows before. */
    boolean confirms(String label, double from, boolean up, long samples, QualityKind kind, long newRows) {
        Seen first = seen.get(label);
        return first != null && first.up() == up && first.from() == from && sameEstimator(first, kind)
            && samples - first.samples() >= newRows;
    }

    /**
     * Whether a jump of {@code label} from the value {@code from} was refused to a fit of estimator {@code kind}: that
     * value stays the baseline of the estimator's next fits while it is carried. Another estimator's fit is measured
     * from it no more than from an active value of that estimator (the prior must not hold the regression back).
     */
    boolean watchesFrom(String label, double from, QualityKind kind) {
        Seen first = seen.get(label);
        return first != null && first.from() == from && first.kind() != null && first.kind() == kind;
    }

    private static boolean sameEstimator(Seen first, QualityKind kind) {
        return first.kind() == null || first.kind() == kind;
    }

    /**
     * The watch after gate run {@code r}: a jump refused again the same way keeps when it was first seen; one refused
     * for the first time (or the other way) starts afresh, as does one whose fit has fewer samples than when it was
     * first seen (the estimator was rebuilt, e.g. after a restore: its count starts over). A jump confirmed by a run
     * whose snapshot was rejected for something else stays as first seen (else two jumps first refused at different
     * times would each be forgotten whenever the other one rejects the snapshot, and never both pass). One whose
     * parameter's fit this run neither passed nor refused (held for imprecision, not fitted, failed another check)
     * stays as first seen: nothing spoke against the value in force, which stays the jump's baseline even carried.
     * Every other is forgotten: the fit came back within the factor, or the jump was accepted.
     */
    public JumpWatch after(GateResult r) {
        Map<String, Seen> next = new HashMap<>();
        for (Refused refused : r.refusedJumps()) {
            Seen first = seen.get(refused.label());
            boolean same = first != null && first.up() == refused.seen().up() && first.from() == refused.seen().from()
                && sameEstimator(first, refused.seen().kind()) && refused.seen().samples() >= first.samples();
            next.put(refused.label(), same ? first : refused.seen());
        }
        if (!r.accepted()) {
            for (String label : r.confirmedJumps()) {
                Seen first = seen.get(label);
                if (first != null) {
                    next.putIfAbsent(label, first);
                }
            }
        }
        for (Map.Entry<String, Seen> watched : seen.entrySet()) {
            if (!r.passedFits().contains(watched.getKey())) {
                next.putIfAbsent(watched.getKey(), watched.getValue());
            }
        }
        return new JumpWatch(next);
    }
}
