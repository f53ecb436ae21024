package io.tierroute.fitter.forest;

/**
 * One training row of the output-length forest: what the routing decision knew (every field but
 * {@code outputTokens} may be null = unknown) and the realised output length, tokens.
 *
 * @param inputTokens              ISL, tokens (≥ 0)
 * @param model                    served model name
 * @param lora                     LoRA adapter name
 * @param stepIndex                workflow step index (≥ 0)
 * @param expectedTool             the tool the step is expected to call
 * @param maxTokens                the request's {@code max_tokens}
 * @param outputHint               the client's output-length hint, tokens
 * @param prefixGroupId            the prefix-group id
 * @param previousStepOutputTokens the previous workflow step's output length, tokens
 * @param outputTokens             target: realised output tokens (≥ 0)
 */
public record OutputRow(Integer inputTokens, String model, String lora, Integer stepIndex,
                        String expectedTool, Integer maxTokens, Integer outputHint, Long prefixGroupId,
                        Integer previousStepOutputTokens, int outputTokens) {

    public OutputRow {
        nonNegative(inputTokens, "inputTokens");
        nonNegative(stepIndex, "stepIndex");
        nonNegative(maxTokens, "maxTokens");
        nonNegative(outputHint, "outputHint");
        nonNegative(previousStepOutputTokens, "previousStepOutputTokens");
        if (outputTokens < 0) {
            throw new IllegalArgumentException("outputTokens must be >= 0: " + outputTokens);
        }
    }

    /** A row with only the input length known (e.g. a trace that carries nothing else). */
    public static OutputRow ofInputOnly(int inputTokens, int outputTokens) {
        return new OutputRow(inputTokens, null, null, null, null, null, null, null, null, outputTokens);
    }

    private static void nonNegative(Integer v, String what) {
        if (v != null && v < 0) {
            throw new IllegalArgumentException(what + " must be >= 0 or null: " + v);
        }
    }
}
