package io.tierroute.schemas;

import java.util.List;

/**
 * The feature vocabulary of the output-length quantile forest, shared by the fitter that trains a
 * {@code QuantileForestModel} and the selector that evaluates one, so the two cannot drift apart: the
 * names a model record lists, their order in a feature vector, and which ones are categorical
 * (encoded as indices into the record's {@code featureLevels}).
 */
public final class ForestFeatureSchema {

    public static final int ISL = 0;
    public static final int MODEL = 1;
    public static final int LORA = 2;
    public static final int STEP = 3;
    public static final int TOOL = 4;
    public static final int MAX_TOKENS = 5;
    public static final int HINT = 6;
    public static final int PREFIX_GROUP = 7;
    public static final int PREVIOUS_OUTPUT = 8;

    /** Feature names, index = the constants above. */
    public static final List<String> NAMES = List.of("isl", "model", "lora", "stepIndex", "expectedTool",
            "maxTokens", "outputHint", "prefixGroup", "previousStepOutputTokens");

    /** The model record's target name. */
    public static final String TARGET = "outputTokens";

    private static final boolean[] CATEGORICAL = {false, true, true, false, true, false, false, true, false};

    private ForestFeatureSchema() {}

    /** Whether feature {@code f} is categorical (its value is a level index, not a number). */
    public static boolean isCategorical(int f) {
        return CATEGORICAL[f];
    }
}
