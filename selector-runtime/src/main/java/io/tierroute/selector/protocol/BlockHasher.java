package io.tierroute.selector.protocol;

import java.nio.charset.StandardCharsets;

import net.openhft.hashing.LongHashFunction;

/**
 * Chained 64-bit block hashes (DESIGN.md §4), built on XXH3 from zero-allocation-hashing.
 *
 * <p>Every block hash names its whole prefix: {@code h_0 = H(salt, c_0)}, {@code h_i = H(h_{i-1}, c_i)},
 * with {@code H(p, c) = XXH3_64(le64(p XOR XXH3_64(c)))}, where {@code c} is the block's content:
 * its token ids as little-endian int32, its characters as UTF-16 code units, or a precomputed per-block
 * id (as traces carry them) as one little-endian int64. For a fixed prefix the combination is
 * injective in the content hash and vice versa, so equal blocks after different prefixes (or under
 * different salts) differ; it costs one 8-byte XXH3 on top of the content hash, measurably less than
 * hashing the 16-byte pair {@code (p, c)} (see bench/RESULTS.md), which matters at 500 blocks per
 * request.
 * Only full blocks are hashed; a trailing partial block is ignored.
 *
 * <p>The hashing methods are allocation-free when the caller provides {@code out}, and stateless, so
 * one instance may be shared between threads.
 */
public final class BlockHasher {

    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    /**
     * The seed of a chain: folds in model, LoRA adapter and cache namespace. {@code null} adapter or
     * namespace is distinct from the empty string, and a value in one position never collides with
     * the same value in another (each field is tagged and length-prefixed).
     */
    public static long salt(String model, String lora, String namespace) {
        if (model == null) {
            throw new IllegalArgumentException("model is required for the block-hash salt");
        }
        byte[][] fields = {utf8(model), utf8(lora), utf8(namespace)};
        int size = 8; // "tierrte1" domain tag
        for (byte[] f : fields) {
            size += 1 + 4 + (f == null ? 0 : f.length);
        }
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(size).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        buf.put("tierrte1".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < fields.length; i++) {
            byte[] f = fields[i];
            buf.put((byte) (f == null ? 0x80 | i : i)); // field position, high bit = absent
            buf.putInt(f == null ? -1 : f.length);
            if (f != null) {
                buf.put(f);
            }
        }
        return XXH3.hashBytes(buf.array());
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Hashes the full blocks of {@code tokens[0, tokenCount)}. Returns the number of blocks written to
     * {@code out} ({@code tokenCount / blockSize}, capped at {@code out.length}). Allocation-free.
     */
    public int hashTokens(int[] tokens, int tokenCount, int blockSize, long salt, long[] out) {
        return hashTokens(tokens, tokenCount, blockSize, salt, out, 0, Integer.MAX_VALUE);
    }

    /**
     * Continues a chain: hashes blocks {@code [from, to)} of {@code tokens} into {@code out}, where
     * {@code out[0, from)} already holds the chain's earlier blocks. Returns the number of blocks
     * hashed in all ({@code min(to, full blocks, out.length)}), so callers can hash a prompt only as
     * deep as they need. Allocation-free.
     */
    public int hashTokens(int[] tokens, int tokenCount, int blockSize, long salt, long[] out, int from, int to) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
        }
        int blocks = Math.min(Math.min(Math.min(tokenCount, tokens.length) / blockSize, out.length), to);
        final LongHashFunction f = XXH3;
        long prev = from == 0 ? salt : out[from - 1];
        for (int i = from; i < blocks; i++) {
            prev = f.hashLong(prev ^ f.hashInts(tokens, i * blockSize, blockSize));
            out[i] = prev;
        }
        return Math.max(blocks, from);
    }

    /**
     * Chains precomputed per-block ids (e.g. a trace's {@code hash_ids}) under {@code salt}, so equal
     * ids under different salts or after different prefixes give different hashes. Allocation-free.
     */
    public int hashBlockIds(long[] ids, int n, long salt, long[] out) {
        return hashBlockIds(ids, n, salt, out, 0, Integer.MAX_VALUE);
    }

    /** Continues a chain of block ids over {@code [from, to)}, as {@link #hashTokens(int[], int, int, long, long[], int, int)}. */
    public int hashBlockIds(long[] ids, int n, long salt, long[] out, int from, int to) {
        int blocks = Math.min(Math.min(Math.min(n, ids.length), out.length), to);
        long prev = from == 0 ? salt : out[from - 1];
        for (int i = from; i < blocks; i++) {
            prev = XXH3.hashLong(prev ^ XXH3.hashLong(ids[i]));
            out[i] = prev;
        }
        return Math.max(blocks, from);
    }

    /**
     * Approximate hashing of raw text: fixed chunks of {@code charsPerBlock} UTF-16 code units, full
     * chunks only (a surrogate pair may straddle two chunks; that is consistent across requests).
     * Allocation-free.
     */
    public int hashText(String text, int charsPerBlock, long salt, long[] out) {
        return hashText(text, charsPerBlock, salt, out, 0, Integer.MAX_VALUE);
    }

    /** Continues a chain of text chunks over {@code [from, to)}, as {@link #hashTokens(int[], int, int, long, long[], int, int)}. */
    public int hashText(String text, int charsPerBlock, long salt, long[] out, int from, int to) {
        if (charsPerBlock <= 0) {
            throw new IllegalArgumentException("charsPerBlock must be positive: " + charsPerBlock);
        }
        int blocks = Math.min(Math.min(text.length() / charsPerBlock, out.length), to);
        long prev = from == 0 ? salt : out[from - 1];
        for (int i = from; i < blocks; i++) {
            prev = XXH3.hashLong(prev ^ XXH3.hashChars(text, i * charsPerBlock, charsPerBlock));
            out[i] = prev;
        }
        return Math.max(blocks, from);
    }
}
