package io.tierroute.sim.policy.peers.sglang;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * SGLang model gateway's approximate radix tree (sgl-model-gateway {@code tree.rs}, late 2025): one
 * character-level radix tree shared by all workers ("tenants"), each node recording which tenants
 * inserted text through it and when they last touched it.
 *
 * <ul>
 *   <li>{@link #insert} walks the text, splitting an edge where the text leaves it; the tenant is
 *       added to (and stamped on) every node of the path, and its character count grows by the length
 *       of each node it is newly added to.</li>
 *   <li>{@link #prefixMatch} returns the matched characters (a partly matched edge counts) and a tenant
 *       of the deepest node touched, and re-stamps that tenant along the path to the root.</li>
 *   <li>{@link #evict} mirrors {@code evict_tenant_by_size}: while a tenant's character count exceeds
 *       the cap, drop the tenant from its least recently used leaf (a node it holds that none of the
 *       node's children hold); a node left with no tenant leaves the tree.</li>
 * </ul>
 *
 * <p><b>Which tenant.</b> Upstream takes the first key of the node's {@code DashMap} of tenants, whose
 * order is its hasher's (a per-process random state): a fixed but arbitrary preference among tenants.
 * This tree models that as a seeded random priority over tenants: the highest-priority tenant of the
 * node wins. {@link #priority(int)} exposes it for tests.
 *
 * <p><b>Memory.</b> An edge is a slice {@code (chars, offset, length)} of a shared array: a new leaf
 * copies only the characters nobody inserted before, and a split makes two slices of one array, so the
 * tree stores each distinct character once. Children are found by a linear scan of their first
 * characters (fan-out is at most the alphabet). Times are the caller's clock (virtual µs here;
 * milliseconds upstream). Not thread-safe: the simulator drives it from one thread.
 */
public final class RadixTree {

    /** What {@link #prefixMatch} found: matched characters and the chosen tenant (-1 if none). */
    public record Match(int matchedChars, int tenant) {}

    private static final char[] NO_KEYS = new char[0];
    private static final Node[] NO_KIDS = new Node[0];

    private static final class Node {
        char[] src;
        int off;
        int len;
        Node parent;
        char[] keys = NO_KEYS;
        Node[] kids = NO_KIDS;
        int nKids;
        int[] tenants = new int[2];
        long[] access = new long[2];
        int nTenants;

        Node(char[] src, int off, int len, Node parent) {
            this.src = src;
            this.off = off;
            this.len = len;
            this.parent = parent;
        }

        Node child(char c) {
            final char[] k = keys;
            for (int i = 0; i < nKids; i++) {
                if (k[i] == c) {
                    return kids[i];
                }
            }
            return null;
        }

        void putChild(char c, Node n) {
            for (int i = 0; i < nKids; i++) {
                if (keys[i] == c) {
                    kids[i] = n;
                    return;
                }
            }
            if (nKids == keys.length) {
                int cap = Math.max(2, nKids * 2);
                keys = Arrays.copyOf(keys, cap);
                kids = Arrays.copyOf(kids, cap);
            }
            keys[nKids] = c;
            kids[nKids++] = n;
        }

        void removeChild(Node n) {
            for (int i = 0; i < nKids; i++) {
                if (kids[i] == n) {
                    nKids--;
                    keys[i] = keys[nKids];
                    kids[i] = kids[nKids];
                    kids[nKids] = null;
                    return;
                }
            }
        }

        int slot(int tenant) {
            for (int i = 0; i < nTenants; i++) {
                if (tenants[i] == tenant) {
                    return i;
                }
            }
            return -1;
        }

        /** Stamps {@code tenant}; returns true if it was newly added. */
        boolean touch(int tenant, long now) {
            int s = slot(tenant);
            if (s >= 0) {
                access[s] = Math.max(access[s], now);
                return false;
            }
            if (nTenants == tenants.length) {
                tenants = Arrays.copyOf(tenants, nTenants * 2);
                access = Arrays.copyOf(access, nTenants * 2);
            }
            tenants[nTenants] = tenant;
            access[nTenants++] = now;
            return true;
        }

        void dropTenant(int slot) {
            nTenants--;
            tenants[slot] = tenants[nTenants];
            access[slot] = access[nTenants];
        }

        /** True when no child holds {@code tenant}: the node is a leaf of that tenant's subtree. */
        boolean isLeafOf(int tenant) {
            for (int i = 0; i < nKids; i++) {
                if (kids[i].slot(tenant) >= 0) {
                    return false;
                }
            }
            return true;
        }
    }

    private final Node root = new Node(NO_KEYS, 0, 0, null);
    private final long[] chars;
    private final int[] priority;
    private long nodes = 1;

    /** A tree for tenants {@code 0 .. tenants-1}; {@code seed} fixes the tie preference among tenants. */
    public RadixTree(int tenants, long seed) {
        this.chars = new long[tenants];
        this.priority = new int[tenants];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < tenants; i++) {
            int j = random.nextInt(i + 1); // Fisher–Yates, inside-out
            priority[i] = priority[j];
            priority[j] = i;
        }
    }

    /** Records that {@code tenant} was sent {@code text} at {@code now}. */
    public void insert(String text, int tenant, long now) {
        Node cur = root;
        cur.touch(tenant, now);
        final int n = text.length();
        int i = 0;
        while (i < n) {
            Node child = cur.child(text.charAt(i));
            if (child == null) {
                char[] rest = new char[n - i];
                text.getChars(i, n, rest, 0);
                Node leaf = new Node(rest, 0, rest.length, cur);
                cur.putChild(rest[0], leaf);
                nodes++;
                leaf.touch(tenant, now);
                chars[tenant] += rest.length;
                return;
            }
            int k = common(child, text, i);
            if (k < child.len) {
                child = split(child, k);
            }
            if (child.touch(tenant, now)) {
                chars[tenant] += child.len;
            }
            cur = child;
            i += k;
        }
    }

    /** The longest stored prefix of {@code text} and a tenant of the deepest node it reaches. */
    public Match prefixMatch(String text, long now) {
        Node cur = root;
        Node deepest = root;
        final int n = text.length();
        int i = 0;
        while (i < n) {
            Node child = cur.child(text.charAt(i));
            if (child == null) {
                break;
            }
            int k = common(child, text, i);
            i += k;
            deepest = child;
            if (k < child.len) {
                break;
            }
            cur = child;
        }
        int tenant = -1;
        for (int s = 0; s < deepest.nTenants; s++) {
            int t = deepest.tenants[s];
            if (tenant < 0 || priority[t] > priority[tenant]) {
                tenant = t;
            }
        }
        if (tenant >= 0) {
            for (Node x = deepest; x != null; x = x.parent) {
                x.touch(tenant, now);
            }
        }
        return new Match(i, tenant);
    }

    /**
     * For every tenant holding more than {@code maxChars} characters, drops it from its least
     * recently used leaves until it holds at most {@code maxChars}.
     */
    public void evict(long maxChars) {
        for (int t = 0; t < chars.length; t++) {
            if (chars[t] > maxChars) {
                evictTenant(t, maxChars);
            }
        }
    }

    private void evictTenant(int tenant, long maxChars) {
        PriorityQueue<Node> lru = new PriorityQueue<>((a, b) -> Long.compare(a.access[a.slot(tenant)], b.access[b.slot(tenant)]));
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            Node x = stack.pop();
            for (int i = 0; i < x.nKids; i++) {
                if (x.kids[i].slot(tenant) >= 0) {
                    stack.push(x.kids[i]);
                }
            }
            if (x != root && x.isLeafOf(tenant)) {
                lru.add(x);
            }
        }
        while (chars[tenant] > maxChars && !lru.isEmpty()) {
            Node x = lru.poll();
            x.dropTenant(x.slot(tenant));
            chars[tenant] -= x.len;
            Node p = x.parent;
            if (x.nTenants == 0) {
                p.removeChild(x);
                x.parent = null;
                nodes--;
            }
            if (p != root && p.isLeafOf(tenant)) {
                lru.add(p);
            }
        }
    }

    private Node split(Node child, int k) {
        Node mid = new Node(child.src, child.off, k, child.parent);
        mid.tenants = Arrays.copyOf(child.tenants, Math.max(2, child.nTenants));
        mid.access = Arrays.copyOf(child.access, Math.max(2, child.nTenants));
        mid.nTenants = child.nTenants;
        child.parent.putChild(child.src[child.off], mid);
        child.off += k;
        child.len -= k;
        child.parent = mid;
        mid.putChild(child.src[child.off], child);
        nodes++;
        return mid;
    }

    /** Characters shared by {@code child}'s edge and {@code text} from {@code i} (at least 1). */
    private static int common(Node child, String text, int i) {
        final char[] s = child.src;
        final int off = child.off;
        final int max = Math.min(child.len, text.length() - i);
        int k = 0;
        while (k < max && s[off + k] == text.charAt(i + k)) {
            k++;
        }
        return k;
    }

    /** Characters attributed to {@code tenant} (the sum of the lengths of the nodes it holds). */
    public long charCount(int tenant) {
        return chars[tenant];
    }

    /** Nodes in the tree, the root included. */
    public long nodeCount() {
        return nodes;
    }

    /** The tenant preference used when a node has several tenants (higher wins). */
    public int priority(int tenant) {
        return priority[tenant];
    }

    /** Recomputes every tenant's character count by walking the tree (for tests). */
    long[] recount() {
        long[] out = new long[chars.length];
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            Node x = stack.pop();
            for (int s = 0; s < x.nTenants; s++) {
                out[x.tenants[s]] += x.len;
            }
            for (int i = 0; i < x.nKids; i++) {
                stack.push(x.kids[i]);
            }
        }
        return out;
    }
}
