package io.tierroute.fitter.snapshot;

import io.tierroute.schemas.avro.ParameterSnapshot;
import io.tierroute.schemas.avro.SnapshotStatus;
import java.util.List;

/**
 * Outcome of {@link ValidationGate#validate}.
 *
 * @param status ACCEPTED or REJECTED
 * @param snapshot the snapshot to record: status set; if ACCEPTED, held values replaced by the active
 *     ones; if REJECTED, the candidate's values unchanged (history shows what was fitted). Its
 *     {@code rejectReasons} = {@code rejections} followed by {@code held}.
 * @param rejections every reason the snapshot was rejected (empty when ACCEPTED)
 * @param held every value held back at the active value (or dropped, for ρ), with why
 * @param notes informational only, not written to the record (e.g. a jump accepted on overwhelming
 *     evidence)
 * @param refusedJumps the jumps refused for want of evidence (among {@code rejections}, or held with an imprecise
 *     fit), for the caller's next {@link JumpWatch}
 * @param confirmedJumps the labels whose watched jump this run confirmed (applied only if the snapshot is accepted)
 * @param passedFits the labels of jump-checked parameters whose fit passed every check, the jump's included (applied
 *     only if the snapshot is accepted): what the caller's next {@link JumpWatch} stops watching. A watched jump whose
 *     parameter's fit neither passed nor was refused again (held, not fitted, failed another check) stays watched
 */
public record GateResult(SnapshotStatus status, ParameterSnapshot snapshot, List<String> rejections,
        List<String> held, List<String> notes, List<JumpWatch.Refused> refusedJumps, List<String> confirmedJumps,
        List<String> passedFits) {

    public GateResult {
        rejections = List.copyOf(rejections);
        held = List.copyOf(held);
        notes = List.copyOf(notes);
        refusedJumps = List.copyOf(refusedJumps);
        confirmedJumps = List.copyOf(confirmedJumps);
        passedFits = List.copyOf(passedFits);
    }

    public boolean accepted() {
        return status == SnapshotStatus.ACCEPTED;
    }
}
