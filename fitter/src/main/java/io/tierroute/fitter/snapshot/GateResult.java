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
 * @param refusedJumps the jumps among {@code rejections}, for the caller's next {@link JumpWatch}
 */
public record GateResult(SnapshotStatus status, ParameterSnapshot snapshot, List<String> rejections,
        List<String> held, List<String> notes, List<JumpWatch.Refused> refusedJumps) {

    public GateResult {
        rejections = List.copyOf(rejections);
        held = List.copyOf(held);
        notes = List.copyOf(notes);
        refusedJumps = List.copyOf(refusedJumps);
    }

    public boolean accepted() {
        return status == SnapshotStatus.ACCEPTED;
    }
}
