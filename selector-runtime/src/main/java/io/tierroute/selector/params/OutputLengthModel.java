package io.tierroute.selector.params;

/**
 * Predicts how many output tokens a request will generate (the {@code d̂} of DESIGN.md §3). The
 * fitter's quantile regression forest implements it; the selector falls back to
 * {@code max_tokens / 2} when a snapshot carries no model.
 */
public interface OutputLengthModel {

    /**
     * The {@code quantile} (in (0, 1)) of the output length for a request with these features, in
     * tokens; must be finite and ≥ 0. Called on the route path: it must be fast and thread-safe.
     */
    double predict(OutputFeatures features, double quantile);

    /** What the output-length model may look at; every field is known before routing. */
    record OutputFeatures(int inputTokens, String model, String lora, Integer stepIndex,
                          String expectedTool, int maxTokens, long prefixGroupId,
                          Integer previousStepOutputTokens) {}
}
