package io.tierroute.fitter.snapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * What one run of the {@link ValidationGate} has found so far: the rejections, the "held: …" reasons, the notes, the
 * jumps refused and confirmed, the fits that passed, and the {@link JumpWatch} the run confirms jumps against. The
 * per-value checks append to it; the gate keeps one for the whole snapshot and one per scalar, so that the rules on
 * fits applied together ({@link AdmissionWaitTogether}, {@link LeftOutQuadratics}) can replace a scalar's findings
 * before they are merged in order. Mutable, and confined to one run.
 */
final class GateFindings {
    final JumpWatch watch;
    final List<String> rejections = new ArrayList<>();
    final List<String> held = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    final List<JumpWatch.Refused> refusedJumps = new ArrayList<>();
    final List<String> confirmedJumps = new ArrayList<>();
    /** The jump-checked labels whose fit passed every check, the jump's included: applied if the snapshot is. */
    final List<String> passedFits = new ArrayList<>();

    GateFindings(JumpWatch watch) {
        this.watch = watch;
    }

    void addAll(GateFindings other) {
        rejections.addAll(other.rejections);
        held.addAll(other.held);
        notes.addAll(other.notes);
        refusedJumps.addAll(other.refusedJumps);
        confirmedJumps.addAll(other.confirmedJumps);
        passedFits.addAll(other.passedFits);
    }
}
