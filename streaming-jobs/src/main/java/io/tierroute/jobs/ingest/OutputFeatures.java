package io.tierroute.jobs.ingest;

import io.tierroute.fitter.forest.OutputRow;

/**
 * The request's features the output-length model learns from; boxed fields are null when unknown. Part of a
 * {@link DecisionRow} and, shared with it, of the {@code JoinedRow} the join makes of it; written by
 * {@code RowFields}.
 */
public final class OutputFeatures {
    public int isl;
    public String model;
    public String lora;
    public Integer stepIndex;
    public String expectedTool;
    public int maxTokens;
    public Integer outputHint;
    public long prefixGroupId;
    public Integer previousStepOutputTokens;

    /** The forest's training row: these features against the output length the completion realised. */
    public OutputRow row(int outputTokens) {
        return new OutputRow(isl, model, lora, stepIndex, expectedTool, maxTokens, outputHint, prefixGroupId,
            previousStepOutputTokens, outputTokens);
    }

    /** A copy: strings and boxed numbers are immutable. */
    public OutputFeatures copy() {
        OutputFeatures c = new OutputFeatures();
        c.isl = isl;
        c.model = model;
        c.lora = lora;
        c.stepIndex = stepIndex;
        c.expectedTool = expectedTool;
        c.maxTokens = maxTokens;
        c.outputHint = outputHint;
        c.prefixGroupId = prefixGroupId;
        c.previousStepOutputTokens = previousStepOutputTokens;
        return c;
    }
}
