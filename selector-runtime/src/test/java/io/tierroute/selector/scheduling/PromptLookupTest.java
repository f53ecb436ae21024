package io.tierroute.selector.scheduling;

import io.tierroute.selector.index.PrefixIndex;
import io.tierroute.selector.index.RunPrefixIndex;
import io.tierroute.selector.protocol.BlockHasher;
import io.tierroute.selector.protocol.KvEvent;
import io.tierroute.selector.protocol.Tier;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A queued request's kept hashes ({@link PromptHashes}) give the lookup's answer without hashing the prompt again. */
class PromptLookupTest {

    private static final int BLOCK = HeldPrompts.BLOCK;
    /** 1,200 blocks: deeper than the first stages (64, 256, 1,024), so a deep match hashes in four stages. */
    private static final int TOKENS = 1_200 * BLOCK;

    private final PrefixIndex index = RunPrefixIndex.builder().workers(2).maxBlocks(100_000).build();
    private final SelectorSettings settings = SelectorSettings.builder(
            List.of(WorkerSpec.of("w0", 1_000_000), WorkerSpec.of("w1", 1_000_000))).blockSize(BLOCK).build();

    @Test
    void keptHashesGiveTheSameAnswerAsHashingAgain() {
        int[] prompt = HeldPrompts.prompt(1, TOKENS);
        store(0, prompt, 1_100); // deep on w0: every stage is hashed
        store(1, prompt, 40);
        PromptLookup first = new PromptLookup(settings, index);
        int hashed = first.hashAndMatch(request(prompt), 0);
        PromptHashes kept = first.hashesToKeep();
        assertThat(kept.count()).isEqualTo(hashed).isEqualTo(1_200);

        PromptLookup again = new PromptLookup(settings, index);
        assertThat(again.hashAndMatch(request(prompt), kept, 0)).isEqualTo(hashed);
        assertThat(again.match().totalBlocks(0)).isEqualTo(1_100);
        assertThat(again.match().totalBlocks(1)).isEqualTo(40);
        assertThat(again.hashesFrom(request(prompt), hashed, 1_100))
                .isEqualTo(first.hashesFrom(request(prompt), hashed, 1_100));
    }

    @Test
    void aLookupReadsTheKeptHashesInsteadOfHashingThePrompt() {
        int[] stored = HeldPrompts.prompt(2, TOKENS);
        int[] other = HeldPrompts.prompt(3, TOKENS);
        store(0, stored, 300);
        PromptLookup lookup = new PromptLookup(settings, index);
        lookup.hashAndMatch(request(stored), 0);
        PromptHashes storedHashes = lookup.hashesToKeep();

        // Handed the stored prompt's hashes, a lookup of another prompt matches what they match: it read them instead
        // of hashing its own tokens (which no worker holds).
        assertThat(new PromptLookup(settings, index).hashAndMatch(request(other), 0)).isEqualTo(64);
        PromptLookup reusing = new PromptLookup(settings, index);
        reusing.hashAndMatch(request(other), storedHashes, 0);
        assertThat(reusing.match().totalBlocks(0)).isEqualTo(300);
    }

    @Test
    void keptHashesGrowAsTheIndexMatchesDeeper() {
        int[] prompt = HeldPrompts.prompt(4, TOKENS);
        store(1, prompt, 30);
        PromptLookup lookup = new PromptLookup(settings, index);
        lookup.hashAndMatch(request(prompt), 0);
        PromptHashes kept = lookup.hashesToKeep();
        assertThat(kept.count()).as("only the first stage while the match ends inside it").isEqualTo(64);

        store(0, prompt, 700); // the prefix lands deeper on w0 while the request waits
        PromptLookup later = new PromptLookup(settings, index);
        assertThat(later.hashAndMatch(request(prompt), kept, 0)).isEqualTo(1_024);
        assertThat(later.match().totalBlocks(0)).isEqualTo(700);
        assertThat(kept.count()).isEqualTo(1_024);
        PromptLookup fresh = new PromptLookup(settings, index);
        fresh.hashAndMatch(request(prompt), 0);
        assertThat(fresh.hashesToKeep().count()).isEqualTo(1_024);
        assertThat(later.hashesFrom(request(prompt), 1_024, 0)).isEqualTo(fresh.hashesFrom(request(prompt), 1_024, 0));

        // What the second lookup added to the kept hashes serves the next one as it served the second.
        PromptLookup third = new PromptLookup(settings, index);
        assertThat(third.hashAndMatch(request(prompt), kept, 0)).isEqualTo(1_024);
        assertThat(third.match().totalBlocks(0)).isEqualTo(700);
        assertThat(third.hashesFrom(request(prompt), 1_024, 0)).isEqualTo(fresh.hashesFrom(request(prompt), 1_024, 0));
    }

    @Test
    void everyFormOfPromptAndSaltGivesTheSameAnswerFromItsKeptHashes() {
        int blocks = 1_200;
        long[] ids = new long[blocks];
        for (int i = 0; i < blocks; i++) {
            ids[i] = 7_000_000L + i;
        }
        String text = "x".repeat(blocks * settings.textCharsPerBlock());
        List<RouteRequest> forms = List.of(
                HeldPrompts.request("tokens", HeldPrompts.prompt(5, blocks * BLOCK)),
                new RouteRequest("ids", null, null, null, null, ids, null, blocks * BLOCK, 512, 100, null, false),
                new RouteRequest("text", null, null, null, null, null, text, null, 512, 100, null, false),
                new RouteRequest("salted", "another-model", "a-lora", "a-namespace",
                        HeldPrompts.prompt(6, blocks * BLOCK), null, null, null, 512, 100, null, false));
        for (RouteRequest r : forms) {
            PromptLookup reference = new PromptLookup(settings, index);
            long[] all = reference.hashesFrom(r, reference.hashAndMatch(r, 0), 0);
            assertThat(all).as(r.requestId()).hasSize(blocks);
            index.apply(new KvEvent.Stored(0, Tier.HBM, false, 0, Arrays.copyOf(all, 300)));

            PromptLookup arrival = new PromptLookup(settings, index);
            int hashed = arrival.hashAndMatch(r, 0);
            PromptHashes kept = arrival.hashesToKeep();
            PromptLookup drain = new PromptLookup(settings, index);
            assertThat(drain.hashAndMatch(r, kept, 0)).as(r.requestId()).isEqualTo(hashed).isEqualTo(1_024);
            assertThat(drain.match().totalBlocks(0)).as(r.requestId()).isEqualTo(300);
            assertThat(drain.hashesFrom(r, hashed, 0)).as(r.requestId()).isEqualTo(all);
        }
    }

    private static RouteRequest request(int[] tokens) {
        return HeldPrompts.request("r", tokens);
    }

    /** The prompt's first {@code blocks} blocks in {@code worker}'s HBM. */
    private void store(int worker, int[] tokens, int blocks) {
        long[] hashes = new long[tokens.length / BLOCK];
        long salt = BlockHasher.salt(settings.model(), null, null);
        new BlockHasher().hashTokens(tokens, tokens.length, BLOCK, salt, hashes);
        index.apply(new KvEvent.Stored(worker, Tier.HBM, false, 0, Arrays.copyOf(hashes, blocks)));
    }
}
