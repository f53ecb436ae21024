package io.tierroute.fitter.snapshot;

import io.tierroute.fitter.forest.ForestCalibration;
import io.tierroute.schemas.avro.QuantileForestModel;
import io.tierroute.schemas.snapshot.ForestStructure;

import java.util.ArrayList;
import java.util.List;

/**
 * The validation gate's check of a candidate's quantile forest (DESIGN.md §5; the gate's class comment lists it
 * under "Snapshot level"): a forest equal to the active one passes unchecked, one trained on too few rows is held,
 * a malformed one is rejected naming its first structural defect ({@link ForestStructure}, the check the selectors'
 * evaluator runs when it loads a model) and every calibration problem.
 */
final class QuantileModelCheck {

    private QuantileModelCheck() {}

    /** {@code held}: the "held: …" reason when the model is held (else null); {@code rejections}: every defect found. */
    record Outcome(String held, List<String> rejections) {}

    /**
     * A model trained on too few rows is HELD (the active model, or none, stays: too little evidence
     * is not a defect, and must not cost the other parameters their update); a malformed one REJECTS.
     */
    static Outcome check(QuantileForestModel m, QuantileForestModel activeModel, long minTrainingRows) {
        List<String> rejections = new ArrayList<>();
        if (m == null || m.equals(activeModel)) {
            return new Outcome(null, rejections);
        }
        String l = "quantileModel";
        if (m.getTrainingRows() < minTrainingRows) {
            return new Outcome("held: " + l + " kept at " + (activeModel == null ? "none (d̂ from hints or max_tokens / 2)"
                : "the active model") + "; trained on " + m.getTrainingRows() + " rows < minimum " + minTrainingRows,
                rejections);
        }
        // The selectors' evaluator runs the same structure check: a model that passes here is one they load.
        ForestStructure.defect(m).ifPresent(defect -> rejections.add(l + ": " + defect));
        for (String problem : ForestCalibration.problems(m)) {
            rejections.add(l + ": " + problem);
        }
        return new Outcome(null, rejections);
    }
}
