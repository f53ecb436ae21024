package io.tierroute.selector.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class BlockHasherTest {

    private final BlockHasher hasher = new BlockHasher();
    private final long salt = BlockHasher.salt("qwen3-32b", null, null);

    private static int[] tokens(int n, int seed) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = seed * 31 + i;
        }
        return t;
    }

    @Test
    void deterministicAcrossInstances() {
        long[] a = new long[8];
        long[] b = new long[8];
        assertThat(hasher.hashTokens(tokens(64, 1), 64, 16, salt, a)).isEqualTo(4);
        assertThat(new BlockHasher().hashTokens(tokens(64, 1), 64, 16, salt, b)).isEqualTo(4);
        assertThat(a).isEqualTo(b);
        assertThat(new HashSet<>(Arrays.asList(a[0], a[1], a[2], a[3]))).hasSize(4);
    }

    @Test
    void saltSeparatesModelsAdaptersAndNamespaces() {
        Set<Long> salts = new HashSet<>();
        salts.add(BlockHasher.salt("m", null, null));
        salts.add(BlockHasher.salt("m", "", null));
        salts.add(BlockHasher.salt("m", null, ""));
        salts.add(BlockHasher.salt("m", "", ""));
        salts.add(BlockHasher.salt("m", "x", null));
        salts.add(BlockHasher.salt("m", null, "x"));
        salts.add(BlockHasher.salt("mx", null, null));
        salts.add(BlockHasher.salt("m2", null, null));
        salts.add(BlockHasher.salt("", "m", null));
        assertThat(salts).hasSize(9);
        assertThat(BlockHasher.salt("m", "a", "b")).isEqualTo(BlockHasher.salt("m", "a", "b"));

        long[] a = new long[2];
        long[] b = new long[2];
        hasher.hashTokens(tokens(32, 7), 32, 16, BlockHasher.salt("m", null, null), a);
        hasher.hashTokens(tokens(32, 7), 32, 16, BlockHasher.salt("m", "lora", null), b);
        assertThat(a[0]).isNotEqualTo(b[0]);
        assertThat(a[1]).isNotEqualTo(b[1]);
    }

    @Test
    void chainingMakesABlockDependOnItsPrefix() {
        int[] x = tokens(32, 1);
        int[] y = tokens(32, 2);
        System.arraycopy(x, 16, y, 16, 16); // same second block after different first blocks
        long[] a = new long[2];
        long[] b = new long[2];
        hasher.hashTokens(x, 32, 16, salt, a);
        hasher.hashTokens(y, 32, 16, salt, b);
        assertThat(a[0]).isNotEqualTo(b[0]);
        assertThat(a[1]).isNotEqualTo(b[1]);

        long[] ids = {5, 9};
        long[] ids2 = {6, 9};
        hasher.hashBlockIds(ids, 2, salt, a);
        hasher.hashBlockIds(ids2, 2, salt, b);
        assertThat(a[1]).isNotEqualTo(b[1]);
        hasher.hashBlockIds(ids, 2, BlockHasher.salt("other", null, null), b);
        assertThat(a[0]).isNotEqualTo(b[0]);
    }

    @Test
    void sharedPrefixGivesSharedHashes() {
        int[] x = tokens(48, 3);
        int[] y = x.clone();
        y[40] = -1; // differs only in block 2
        long[] a = new long[3];
        long[] b = new long[3];
        hasher.hashTokens(x, 48, 16, salt, a);
        hasher.hashTokens(y, 48, 16, salt, b);
        assertThat(a[0]).isEqualTo(b[0]);
        assertThat(a[1]).isEqualTo(b[1]);
        assertThat(a[2]).isNotEqualTo(b[2]);
    }

    @Test
    void partialBlocksAreIgnored() {
        long[] full = new long[10];
        long[] part = new long[10];
        assertThat(hasher.hashTokens(tokens(47, 4), 47, 16, salt, part)).isEqualTo(2);
        assertThat(hasher.hashTokens(tokens(47, 4), 32, 16, salt, full)).isEqualTo(2);
        assertThat(Arrays.copyOf(part, 2)).isEqualTo(Arrays.copyOf(full, 2));
        assertThat(hasher.hashTokens(tokens(15, 4), 15, 16, salt, part)).isZero();
        assertThat(hasher.hashText("abcdefghij", 4, salt, part)).isEqualTo(2);
        assertThat(hasher.hashText("abcdefgh", 4, salt, full)).isEqualTo(2);
        assertThat(part[1]).isEqualTo(full[1]);
        assertThat(hasher.hashText("abcdefgX", 4, salt, full)).isEqualTo(2);
        assertThat(part[0]).isEqualTo(full[0]);
        assertThat(part[1]).isNotEqualTo(full[1]);
    }

    @Test
    void outputCapacityBoundsTheResult() {
        long[] out = new long[3];
        assertThat(hasher.hashTokens(tokens(160, 5), 160, 16, salt, out)).isEqualTo(3);
        assertThat(hasher.hashBlockIds(new long[] {1, 2, 3, 4}, 4, salt, out)).isEqualTo(3);
    }

    @Test
    void aChainHashedInStagesEqualsTheChainHashedAtOnce() {
        BlockHasher hasher = new BlockHasher();
        long salt = BlockHasher.salt("m", null, null);
        int[] tokens = new int[16 * 300 + 5];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = i * 7 + 1;
        }
        long[] whole = new long[300];
        long[] staged = new long[300];
        org.assertj.core.api.Assertions.assertThat(hasher.hashTokens(tokens, tokens.length, 16, salt, whole)).isEqualTo(300);
        int n = hasher.hashTokens(tokens, tokens.length, 16, salt, staged, 0, 64);
        n = hasher.hashTokens(tokens, tokens.length, 16, salt, staged, n, 256);
        n = hasher.hashTokens(tokens, tokens.length, 16, salt, staged, n, 1024);
        org.assertj.core.api.Assertions.assertThat(n).isEqualTo(300);
        org.assertj.core.api.Assertions.assertThat(staged).isEqualTo(whole);

        long[] ids = {5, 9, 11, 2, 7};
        long[] idsWhole = new long[5];
        long[] idsStaged = new long[5];
        hasher.hashBlockIds(ids, 5, salt, idsWhole);
        hasher.hashBlockIds(ids, 5, salt, idsStaged, hasher.hashBlockIds(ids, 5, salt, idsStaged, 0, 2), 5);
        org.assertj.core.api.Assertions.assertThat(idsStaged).isEqualTo(idsWhole);

        String text = "x".repeat(64 * 10) + "yz";
        long[] textWhole = new long[10];
        long[] textStaged = new long[10];
        hasher.hashText(text, 64, salt, textWhole);
        hasher.hashText(text, 64, salt, textStaged, hasher.hashText(text, 64, salt, textStaged, 0, 3), 10);
        org.assertj.core.api.Assertions.assertThat(textStaged).isEqualTo(textWhole);
    }
}
