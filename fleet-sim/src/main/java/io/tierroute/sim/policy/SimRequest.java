package io.tierroute.sim.policy;

import java.util.List;

/**
 * One request as the simulator replays it.
 *
 * <p>The prompt is given three ways, all consistent: {@code blockIds} (per-block content ids, e.g. a
 * Mooncake trace's {@code hash_ids}, one per full block), {@code blockHashes} (those ids chained with
 * selector-runtime's {@code BlockHasher.hashBlockIds} under {@code BlockHasher.salt(model, null, null)},
 * exactly what the engine reports in its KV events and what the real selector computes from
 * {@code blockIds}), and {@link #text()} for character-level routers.
 *
 * <p><b>Text surrogate.</b> {@code text()} is {@link #TEXT_CHARS_PER_BLOCK} characters per full block,
 * derived only from that block's chained hash (so equal prefixes give equal text and a different
 * earlier block changes all later text), followed by the partial tail block at the same density
 * ({@code ceil(tail tokens · TEXT_CHARS_PER_BLOCK / blockSize)} characters) derived from the request
 * id, i.e. unique. One character thus stands for {@code blockSize / TEXT_CHARS_PER_BLOCK} tokens;
 * match <em>ratios</em> (what SGLang thresholds) equal token ratios up to the tail rounding.
 * Computed on each call; cache it if you call it often.
 *
 * @param id                           unique request id
 * @param arrivalMicros                arrival time on the virtual clock
 * @param promptTokens                 ISL
 * @param blockIds                     per-block content ids of the full blocks ({@code promptTokens / blockSize} of them)
 * @param blockHashes                  the chained hashes of those blocks (same length)
 * @param blockSize                    tokens per block
 * @param maxTokens                    the request's output limit
 * @param trueOutputTokensForOracleOnly the output length the engine will produce; only the oracle may read it
 * @param agent                        agent workflow context, or null
 */
public record SimRequest(String id, long arrivalMicros, int promptTokens, long[] blockIds, long[] blockHashes,
                         int blockSize, int maxTokens, int trueOutputTokensForOracleOnly, Agent agent) {

    /** Characters of {@link #text()} per full block. */
    public static final int TEXT_CHARS_PER_BLOCK = 16;

    /**
     * Agent workflow context.
     *
     * @param workflowId           the session / workflow id
     * @param step                 the step number within the workflow, from 0
     * @param expectedNextTools    tools the agent expects to call next (may be empty)
     * @param expectedOutputTokens the agent's hint for the output length, or null
     */
    public record Agent(String workflowId, int step, List<String> expectedNextTools, Integer expectedOutputTokens) {
        public Agent {
            expectedNextTools = expectedNextTools == null ? List.of() : List.copyOf(expectedNextTools);
        }
    }

    public SimRequest {
        if (blockIds.length != blockHashes.length || blockIds.length != promptTokens / blockSize) {
            throw new IllegalArgumentException("request " + id + ": " + blockIds.length + " block ids and "
                    + blockHashes.length + " hashes for " + promptTokens + " tokens of block size " + blockSize);
        }
        if (maxTokens <= 0 || trueOutputTokensForOracleOnly <= 0 || trueOutputTokensForOracleOnly > maxTokens) {
            throw new IllegalArgumentException("request " + id + ": need 0 < output (" + trueOutputTokensForOracleOnly
                    + ") ≤ max_tokens (" + maxTokens + ")");
        }
    }

    /** Full blocks of the prompt. */
    public int fullBlocks() {
        return blockHashes.length;
    }

    /** The character surrogate of the prompt (see the class comment). */
    public String text() {
        int tailTokens = promptTokens - blockHashes.length * blockSize;
        int tailChars = (tailTokens * TEXT_CHARS_PER_BLOCK + blockSize - 1) / blockSize;
        StringBuilder sb = new StringBuilder(blockHashes.length * TEXT_CHARS_PER_BLOCK + tailChars);
        for (long h : blockHashes) {
            appendChars(sb, h, TEXT_CHARS_PER_BLOCK);
        }
        appendChars(sb, id.hashCode() * 0x9E3779B97F4A7C15L + tailTokens, tailChars);
        return sb.toString();
    }

    private static void appendChars(StringBuilder sb, long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x += 0x9E3779B97F4A7C15L; // splitmix64
            long z = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z ^= z >>> 31;
            sb.append((char) ('!' + Math.floorMod(z, 94))); // printable ASCII
        }
    }
}
