package io.tierroute.jobs.fit;

import io.tierroute.fitter.snapshot.JumpWatch;
import io.tierroute.schemas.avro.QualityKind;

/**
 * A jump the gate refused, as first seen ({@link JumpWatch.Seen}), in the form the fitting operator keeps it in map
 * state under the parameter's label (a POJO: Flink's own serializer, no generic fallback, which restores state written
 * before a field was added with that field at its default).
 */
public class RefusedJump {
    /** The active value it jumped from. */
    public double from;
    public boolean up;
    /** The sample count of the fit that first showed it. */
    public long samples;
    /** The refused fit's estimator ({@link QualityKind}'s name); null in state kept before it was recorded. */
    public String kind;

    public RefusedJump() {}

    static RefusedJump of(JumpWatch.Seen s) {
        RefusedJump r = new RefusedJump();
        r.from = s.from();
        r.up = s.up();
        r.samples = s.samples();
        r.kind = s.kind() == null ? null : s.kind().name();
        return r;
    }

    JumpWatch.Seen seen() {
        return new JumpWatch.Seen(from, up, samples, kind == null ? null : QualityKind.valueOf(kind));
    }
}
