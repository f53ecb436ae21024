package io.tierroute.selector.scheduling;

import java.util.List;

/**
 * A request to route, as the HTTP API or the simulator hands it over. The prompt comes in exactly
 * one of three forms: token ids (exact), precomputed per-block ids (as traces carry), or raw text
 * (approximate: fixed character chunks).
 *
 * @param requestId            unique while in flight
 * @param model                the model name (part of the hash salt)
 * @param lora                 LoRA adapter or null (part of the hash salt)
 * @param namespace            cache namespace or null (part of the hash salt)
 * @param tokens               prompt token ids, or null
 * @param blockIds             per-block ids, or null; {@code inputTokens} then gives the length
 * @param text                 prompt text, or null
 * @param inputTokens          prompt length in tokens; required with {@code blockIds}, optional with text
 * @param maxTokens            the request's output limit
 * @param expectedOutputTokens the agent's hint for the output length, or null
 * @param agent                agent workflow context, or null
 * @param explain              whether the decision should carry every candidate's breakdown
 */
public record RouteRequest(String requestId, String model, String lora, String namespace,
                           int[] tokens, long[] blockIds, String text, Integer inputTokens,
                           int maxTokens, Integer expectedOutputTokens, AgentContext agent,
                           boolean explain) {

    /** Upper bound on a prompt's length in tokens; longer ones are rejected as absurd. */
    public static final int MAX_INPUT_TOKENS = 10_000_000;

    /** Agent workflow context (JSON fields or {@code x-agent-*} headers). */
    public record AgentContext(String workflowId, String stepId, List<String> expectedNextTools) {
        public AgentContext {
            expectedNextTools = expectedNextTools == null ? List.of() : List.copyOf(expectedNextTools);
        }

        /**
         * The step index, when {@code stepId} is a whole number ≥ 0 (at most 9 digits), else null: the output-length
         * forest's {@code stepIndex} feature, the same at serving as in the decision record it was trained on.
         */
        public Integer stepIndex() {
            if (stepId == null || stepId.isEmpty() || stepId.length() > 9) {
                return null;
            }
            for (int i = 0; i < stepId.length(); i++) {
                if (!Character.isDigit(stepId.charAt(i))) {
                    return null;
                }
            }
            return Integer.parseInt(stepId);
        }
    }

    public RouteRequest {
        if (requestId == null || requestId.isBlank()) {
            throw new IllegalArgumentException("request_id is required");
        }
        int forms = (tokens != null ? 1 : 0) + (blockIds != null ? 1 : 0) + (text != null ? 1 : 0);
        if (forms != 1) {
            throw new IllegalArgumentException(
                    "give the prompt in exactly one form: token_ids, block_hashes or text (got " + forms + ")");
        }
        if (blockIds != null && inputTokens == null) {
            throw new IllegalArgumentException("input_tokens is required with block_hashes");
        }
        if (inputTokens != null && (inputTokens < 0 || inputTokens > MAX_INPUT_TOKENS)) {
            throw new IllegalArgumentException("input_tokens must be in [0, " + MAX_INPUT_TOKENS + "], got " + inputTokens);
        }
        if (tokens != null && inputTokens != null && inputTokens != tokens.length) {
            throw new IllegalArgumentException("input_tokens (" + inputTokens + ") disagrees with the "
                    + tokens.length + " token_ids given; leave it out with token_ids");
        }
        if (tokens != null && tokens.length > MAX_INPUT_TOKENS) {
            throw new IllegalArgumentException("token_ids has " + tokens.length + " tokens; the limit is " + MAX_INPUT_TOKENS);
        }
        if (maxTokens <= 0 || maxTokens > MAX_INPUT_TOKENS) {
            throw new IllegalArgumentException("max_tokens must be in [1, " + MAX_INPUT_TOKENS + "], got " + maxTokens);
        }
        if (expectedOutputTokens != null && (expectedOutputTokens < 0 || expectedOutputTokens > MAX_INPUT_TOKENS)) {
            throw new IllegalArgumentException("expected_output_tokens must be in [0, " + MAX_INPUT_TOKENS
                    + "], got " + expectedOutputTokens);
        }
    }
}
