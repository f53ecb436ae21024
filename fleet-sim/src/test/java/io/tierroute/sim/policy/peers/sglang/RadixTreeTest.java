package io.tierroute.sim.policy.peers.sglang;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class RadixTreeTest {

    /** The obviously-correct reference: every inserted string with its tenant, scanned in full. */
    static final class NaiveTree {
        final List<String> texts = new ArrayList<>();
        final List<Integer> tenants = new ArrayList<>();

        void insert(String text, int tenant) {
            texts.add(text);
            tenants.add(tenant);
        }

        int longestMatch(String text) {
            int best = 0;
            for (String s : texts) {
                best = Math.max(best, lcp(s, text));
            }
            return best;
        }

        /** The tenant a tree with preference {@code tree} must pick: the top-priority tenant reaching {@code matched}. */
        int expectedTenant(String text, int matched, RadixTree tree) {
            int best = -1;
            for (int i = 0; i < texts.size(); i++) {
                int t = tenants.get(i);
                if (lcp(texts.get(i), text) >= matched && (best < 0 || tree.priority(t) > tree.priority(best))) {
                    best = t;
                }
            }
            return best;
        }

        static int lcp(String a, String b) {
            int n = Math.min(a.length(), b.length());
            int i = 0;
            while (i < n && a.charAt(i) == b.charAt(i)) {
                i++;
            }
            return i;
        }
    }

    /** Strings over a small alphabet built from a few shared stems, so that edges split and share a lot. */
    static String randomText(SplittableRandom r, List<String> stems) {
        StringBuilder sb = new StringBuilder();
        if (!stems.isEmpty() && r.nextInt(4) != 0) {
            String stem = stems.get(r.nextInt(stems.size()));
            sb.append(stem, 0, r.nextInt(stem.length() + 1));
        }
        int extra = r.nextInt(30);
        for (int i = 0; i < extra; i++) {
            sb.append((char) ('a' + r.nextInt(3)));
        }
        String s = sb.toString();
        if (s.length() > 5 && stems.size() < 20) {
            stems.add(s);
        }
        return s;
    }

    @Test
    void prefixMatchAgreesWithTheNaiveOracle() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int tenants = 1 + r.nextInt(6);
            RadixTree tree = new RadixTree(tenants, seed);
            NaiveTree naive = new NaiveTree();
            List<String> stems = new ArrayList<>();
            for (int op = 0; op < 400; op++) {
                String text = randomText(r, stems);
                if (r.nextBoolean()) {
                    int t = r.nextInt(tenants);
                    tree.insert(text, t, op);
                    naive.insert(text, t);
                } else {
                    RadixTree.Match m = tree.prefixMatch(text, op);
                    int expected = naive.longestMatch(text);
                    assertThat(m.matchedChars()).as("seed %d op %d text %s", seed, op, text).isEqualTo(expected);
                    assertThat(m.tenant()).as("seed %d op %d text %s", seed, op, text)
                            .isEqualTo(naive.expectedTenant(text, expected, tree));
                }
                assertThat(tree.recount()).as("seed %d op %d", seed, op)
                        .containsExactly(counts(tree, tenants));
            }
        }
    }

    @Test
    void charCountIsTheDistinctCharactersATenantInserted() {
        RadixTree tree = new RadixTree(2, 7);
        tree.insert("hello world", 0, 1);
        tree.insert("hello there", 0, 2);
        tree.insert("hello", 1, 3);
        assertThat(tree.charCount(0)).isEqualTo("hello world".length() + "there".length());
        assertThat(tree.charCount(1)).isEqualTo(5);
        assertThat(tree.prefixMatch("hello wor", 4)).isEqualTo(new RadixTree.Match(9, 0));
        assertThat(tree.prefixMatch("xyz", 5).matchedChars()).isZero();
    }

    @Test
    void evictionDropsTheLeastRecentlyUsedLeafUntilUnderTheCap() {
        RadixTree tree = new RadixTree(1, 1);
        tree.insert("aaaa", 0, 1);
        tree.insert("bbbb", 0, 2);
        tree.insert("cccc", 0, 3);
        tree.prefixMatch("aaaa", 4); // touches "aaaa": now "bbbb" is the oldest
        tree.evict(8);
        assertThat(tree.charCount(0)).isEqualTo(8);
        assertThat(tree.prefixMatch("bbbb", 5)).isEqualTo(new RadixTree.Match(0, 0)); // root still names tenant 0
        assertThat(tree.prefixMatch("aaaa", 6).matchedChars()).isEqualTo(4);
        assertThat(tree.prefixMatch("cccc", 7).matchedChars()).isEqualTo(4);
        assertThat(tree.recount()).containsExactly(8);
    }

    @Test
    void evictionWalksUpFromALeafToItsParentAndKeepsOtherTenants() {
        RadixTree tree = new RadixTree(2, 1);
        tree.insert("abcdef", 0, 1);   // one node "abcdef"
        tree.insert("abcxyz", 0, 2);   // split: "abc" → {"def", "xyz"}
        tree.insert("abc", 1, 3);      // tenant 1 on "abc" only
        tree.insert("qq", 0, 10);      // tenant 0's most recent
        assertThat(tree.charCount(0)).isEqualTo(11);
        tree.evict(3);                 // 0: drops "def", "xyz", then "abc" (now its leaf), keeps "qq"; 1 fits
        assertThat(tree.charCount(0)).isEqualTo(2);
        assertThat(tree.charCount(1)).isEqualTo(3);
        assertThat(tree.prefixMatch("abcdef", 11)).isEqualTo(new RadixTree.Match(3, 1));
        assertThat(tree.prefixMatch("qq", 12)).isEqualTo(new RadixTree.Match(2, 0));
    }

    @Test
    void evictionKeepsCountsConsistentUnderRandomOperations() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int tenants = 1 + r.nextInt(4);
            RadixTree tree = new RadixTree(tenants, seed);
            List<String> stems = new ArrayList<>();
            for (int op = 0; op < 300; op++) {
                String text = randomText(r, stems);
                tree.insert(text, r.nextInt(tenants), op);
                if (op % 25 == 24) {
                    long cap = 10 + r.nextInt(60);
                    tree.evict(cap);
                    for (int t = 0; t < tenants; t++) {
                        assertThat(tree.charCount(t)).as("seed %d tenant %d", seed, t).isLessThanOrEqualTo(cap);
                    }
                }
                assertThat(tree.recount()).as("seed %d op %d", seed, op).containsExactly(counts(tree, tenants));
            }
        }
    }

    @Test
    void longTextsWithASharedPrefixStayCompact() {
        RadixTree tree = new RadixTree(8, 3);
        SplittableRandom r = new SplittableRandom(3);
        StringBuilder prefix = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            prefix.append((char) ('!' + r.nextInt(94)));
        }
        for (int i = 0; i < 200; i++) {
            tree.insert(prefix + "#" + i, i % 8, i);
        }
        assertThat(tree.nodeCount()).isLessThanOrEqualTo(2 + 2 * 200);
        assertThat(tree.prefixMatch(prefix + "zzz", 300).matchedChars()).isEqualTo(20_000);
    }

    private static long[] counts(RadixTree tree, int tenants) {
        long[] c = new long[tenants];
        for (int t = 0; t < tenants; t++) {
            c[t] = tree.charCount(t);
        }
        return c;
    }
}
