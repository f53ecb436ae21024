package io.tierroute.jobs.fit;

import io.tierroute.fitter.snapshot.JumpWatch;

/**
 * A jump the gate refused, as first seen ({@link JumpWatch.Seen}), in the form the fitting operator keeps it in map
 * state under the parameter's label (a POJO: Flink's own serializer, no generic fallback).
 */
public class RefusedJump {
    /** The active value it jumped from. */
    public double from;
    public boolean up;
    /** The sample count of the fit that first showed it. */
    public long samples;

    public RefusedJump() {}

    static RefusedJump of(JumpWatch.Seen s) {
        RefusedJump r = new RefusedJump();
        r.from = s.from();
        r.up = s.up();
        r.samples = s.samples();
        return r;
    }

    JumpWatch.Seen seen() {
        return new JumpWatch.Seen(from, up, samples);
    }
}
