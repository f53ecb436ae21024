package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.PrefixMatch;
import io.tierroute.selector.protocol.BlockHasher;

import java.util.Arrays;

/**
 * Turns a request's prompt into chained block hashes and looks them up in the prefix index. One per
 * thread (it owns the hash buffer and the {@link PrefixMatch} it fills); allocation-free once its
 * buffer has grown to the longest prompt seen.
 *
 * <p>Hashing is most of a decision's time, and no worker's matched depth can pass the first block
 * nobody holds, so long prompts are hashed in stages (64, 256, 1,024… blocks): after each stage the
 * index walk continues ({@link PrefixIndex#matchMore}), and the lookup stops once every worker's
 * depth ends inside the hashed part. The answer equals hashing and matching the whole prompt.
 */
final class PromptLookup {

    /** Blocks hashed and matched in the first stage; later stages grow fourfold. */
    static final int FIRST_STAGE_BLOCKS = 64;

    private final SelectorSettings settings;
    private final PrefixIndex index;
    private final long defaultSalt;
    private final BlockHasher hasher = new BlockHasher();
    private final PrefixMatch match;
    private long[] hashes = new long[1024];
    private long salt;
    private int totalBlocks;
    /** During {@link #hashAndMatch}: the request's hashes kept in the admission queue, or null. */
    private PromptHashes known;
    /** Leading blocks of the last {@link #hashAndMatch} request in {@link #hashes}. */
    private int hashedSoFar;

    PromptLookup(SelectorSettings settings, PrefixIndex index) {
        this.settings = settings;
        this.index = index;
        this.defaultSalt = BlockHasher.salt(settings.model(), null, null);
        this.match = new PrefixMatch(settings.workers().size());
    }

    /** The answer of the last {@link #hashAndMatch}. */
    PrefixMatch match() {
        return match;
    }

    /** Block {@code i}'s chained hash from the last {@link #hashAndMatch} (i below what it returned). */
    long hash(int i) {
        return hashes[i];
    }

    /** Hashes and matches {@code r}'s prompt as deep as any worker matches; returns the blocks hashed. */
    int hashAndMatch(RouteRequest r, long nowNanos) {
        return hashAndMatch(r, null, nowNanos);
    }

    /**
     * As {@link #hashAndMatch(RouteRequest, long)}, taking the blocks {@code known} already holds from it instead of
     * hashing them, and leaving any it hashes further there too (null: none known, none kept). {@code known} is the
     * queued request's, shared by every thread's lookup: the caller holds the drain lock. This lookup keeps no
     * reference to it afterwards ({@link #hashesFrom}, at the admission, hashes what it needs beyond).
     */
    int hashAndMatch(RouteRequest r, PromptHashes known, long nowNanos) {
        this.known = known;
        try {
            return hashAndMatchStaged(r, nowNanos);
        } finally {
            this.known = null;
        }
    }

    private int hashAndMatchStaged(RouteRequest r, long nowNanos) {
        hashedSoFar = 0;
        salt = r.model() == null && r.lora() == null && r.namespace() == null
                ? defaultSalt
                : BlockHasher.salt(r.model() == null ? settings.model() : r.model(), r.lora(), r.namespace());
        totalBlocks = fullBlocks(r);
        if (hashes.length < totalBlocks) {
            hashes = new long[Math.max(totalBlocks, hashes.length * 2)];
        }
        int hashed = hashRange(r, 0, Math.min(totalBlocks, FIRST_STAGE_BLOCKS));
        index.match(hashes, hashed, nowNanos, match);
        for (int stage = FIRST_STAGE_BLOCKS * 4; hashed < totalBlocks && deepestMatch() >= hashed; stage *= 4) {
            hashed = hashRange(r, hashed, Math.min(totalBlocks, stage));
            index.matchMore(hashes, hashed, nowNanos, match); // continues the walk, no rescan
        }
        return hashed;
    }

    /**
     * Every block hash of the prompt of the last {@link #hashAndMatch} (which hashed {@code hashed}
     * of them), in a new array: approximate mode indexes the whole prompt for the chosen worker.
     */
    long[] allHashes(RouteRequest r, int hashed) {
        return hashesFrom(r, hashed, 0);
    }

    /**
     * The prompt's block hashes from block {@code from} on, in a new array: call it right after {@link #hashAndMatch}
     * of the same request with what that returned ({@code hashed}); the blocks not yet hashed are hashed first.
     */
    long[] hashesFrom(RouteRequest r, int hashed, int from) {
        int all = hashed >= totalBlocks ? hashed : hashRange(r, hashed, totalBlocks);
        return from >= all ? new long[0] : Arrays.copyOfRange(hashes, from, all);
    }

    /**
     * The hashes the last {@link #hashAndMatch} (and any {@link #hashesFrom} after it) computed, for a request that
     * is about to queue: a copy, which the drains' lookups reuse and extend.
     */
    PromptHashes hashesToKeep() {
        return new PromptHashes(hashes, hashedSoFar);
    }

    /** ISL: given, or counted, or estimated from text at the configured characters per token. */
    int inputTokens(RouteRequest r) {
        if (r.inputTokens() != null) {
            return r.inputTokens();
        }
        if (r.tokens() != null) {
            return r.tokens().length;
        }
        long estimate = ((long) r.text().length() * settings.blockSize() + settings.textCharsPerBlock() - 1)
                / settings.textCharsPerBlock();
        return (int) Math.min(estimate, RouteRequest.MAX_INPUT_TOKENS);
    }

    private int deepestMatch() {
        int deepest = 0;
        for (int w = 0; w < match.workers(); w++) {
            deepest = Math.max(deepest, match.totalBlocks(w));
        }
        return deepest;
    }

    private int fullBlocks(RouteRequest r) {
        if (r.tokens() != null) {
            return r.tokens().length / settings.blockSize();
        }
        if (r.blockIds() != null) {
            return r.blockIds().length;
        }
        return r.text().length() / settings.textCharsPerBlock();
    }

    /**
     * Extends the chain in {@code hashes} from block {@code from} to {@code to}: from what {@link #known} holds as far
     * as it goes, then by hashing (and keeping those there).
     */
    private int hashRange(RouteRequest r, int from, int to) {
        int hashed;
        if (known == null) {
            hashed = hashFresh(r, from, to);
        } else {
            int copied = Math.min(to, Math.max(from, known.count()));
            known.copyTo(hashes, from, copied);
            hashed = copied == to ? to : hashFresh(r, copied, to);
            known.extend(hashes, hashed);
        }
        hashedSoFar = Math.max(hashedSoFar, hashed);
        return hashed;
    }

    private int hashFresh(RouteRequest r, int from, int to) {
        if (r.tokens() != null) {
            return hasher.hashTokens(r.tokens(), r.tokens().length, settings.blockSize(), salt, hashes, from, to);
        }
        if (r.blockIds() != null) {
            return hasher.hashBlockIds(r.blockIds(), r.blockIds().length, salt, hashes, from, to);
        }
        return hasher.hashText(r.text(), settings.textCharsPerBlock(), salt, hashes, from, to);
    }
}
