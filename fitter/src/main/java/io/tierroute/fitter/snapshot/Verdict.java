package io.tierroute.fitter.snapshot;

/**
 * The {@link ValidationGate}'s verdict on one value: applied as fitted (OK), kept at the value in force (HOLD), or
 * the snapshot rejected for it (REJECT). The reasons go to {@link GateFindings}; this only steers what the gate puts in
 * the snapshot and which later checks still run.
 */
enum Verdict { OK, HOLD, REJECT }
