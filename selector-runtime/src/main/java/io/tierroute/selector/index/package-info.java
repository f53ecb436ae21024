/**
 * The prefix index (DESIGN.md §4): which worker holds which chained block hash on which tier.
 *
 * <h2>File map</h2>
 * <ul>
 *   <li>{@link io.tierroute.selector.index.PrefixIndex} — the interface and its concurrency contract
 *       (the contract other packages code against).</li>
 *   <li>{@link io.tierroute.selector.index.PrefixMatch} — the reusable per-thread answer.</li>
 *   <li>{@link io.tierroute.selector.index.RunPrefixIndex} — the production index: what readers load
 *       (the table of block → run, the epoch, the published count) and every write of those fields, the
 *       lock-free read path, and the write entry points; {@link io.tierroute.selector.index.RunPrefixIndexConfig}
 *       — its options and builder.</li>
 *   <li>{@code WriteOp}, {@code RunLayout}, {@code LruPruner} — its single writer: the current op and
 *       which blocks it changes; the runs and how they are created, grown, split, compacted and retired
 *       in the order readers rely on; the block cap.</li>
 *   <li>{@code Run}, {@code Holders}, {@code BlockTable} — its internals: a run of blocks sharing one
 *       immutable holder set, the holder set, and the lock-free open-addressing table.</li>
 *   <li>{@link io.tierroute.selector.index.NaiveReferenceIndex} — the obviously-correct oracle
 *       ({@code HashMap<hash, Set<worker> per tier>}, walked block by block) for tests and benchmarks.</li>
 * </ul>
 * Hashing lives in {@code protocol/BlockHasher}.
 *
 * <h2>Semantics</h2>
 * A worker holds a block on tier {@code t} when an event stored it there and no later event removed
 * it. {@code match} reports, per worker and tier, the longest prefix from block 0 whose every block the
 * worker holds on {@code t} or a faster tier. Parent hashes and the order of hashes in events are
 * only layout hints: answers depend on the set of held (worker, tier, hash) triples alone.
 * {@code matchMore} continues a walk that reached the end of the blocks it was given with some
 * worker still matching (the live masks wait in the {@code PrefixMatch}), so a caller can hash a
 * long prompt in stages and stop as soon as nobody matches; the answer equals one {@code match}.
 *
 * <p><b>Approximate mode and the mixing rule.</b> {@code recordRouted} gives the worker an
 * approximate HBM entry on each block, expiring at {@code now + ttl}; re-inserting keeps the later
 * expiry. A block counts as held on HBM (hence on every tier, cumulatively) while
 * {@code now < expiry}, even before {@code expire} drops the entry. Real events and approximate
 * entries coexist per worker and per block: a block is held if either says so. Events win where they
 * speak: {@code Removed} from HBM (and {@code Moved} out of HBM) drops the worker's approximate entry
 * on those blocks too, because the engine reported it gone; {@code Cleared} drops both kinds. A
 * {@code Stored} event leaves an approximate entry alone (it adds, never contradicts).
 *
 * <p><b>Bounded memory.</b> {@code maxBlocks} caps the indexed blocks. When a write takes the count
 * past it, the writer drops whole runs in least-recently-used order (used = stored, refreshed or
 * matched, stamped with the writer's operation counter) until the count is at
 * {@code maxBlocks * pruneToFraction}. Readers stamp a run with an opaque store. LRU is per run, not
 * per block: a run is a stretch of blocks stored together with the same holders. A split run shares its array
 * with the pieces, so a piece holding under a quarter of its array (64 slots or more) gets a copy of its own: the
 * pieces an engine's evictions leave do not keep whole events' arrays alive; a {@code Moved} part of a run gets its
 * own at once (the faster part is usually evicted first). A new run's array is sized for the blocks
 * that follow it unindexed in its event, and the event's next new run takes the spare slots first, so an event over a
 * chain with holes takes storage for its new blocks only. A next-run hint to a dead run would keep that run's array
 * reachable: the writer drops such hints once the runs retired since its last sweep held more blocks than are indexed.
 *
 * <h2>Concurrency argument</h2>
 * One writer thread mutates; readers take no lock. Everything a reader can reach is either
 * immutable ({@code Holders}, a run's {@code arr} elements once written, a slot's key once set) or
 * a single reference/int published with release semantics after the data it points to (table slots'
 * runs, the table itself, a run's {@code end}); readers load them with acquire, so a reader sees
 * each block's holder set as of some write that happened before or during its call, never a torn
 * one. Each event changes each block's holders in one step ({@code Moved} too: one op taking the
 * worker from the old tier to the new, not a removal then a store, between which a reader would see
 * the block on neither tier). Changing a block's holders never mutates a published run: the writer
 * builds new runs, re-points the affected slots to them, and only then shrinks the old run's
 * {@code end}; a reader still inside the old run sees the old holders (allowed for a racing event), and
 * one that finds a slot's block missing from the run it names re-reads the slot, which by then
 * names the new run. A replaced run is marked {@code dead} (volatile) only after its blocks were
 * re-published, so a reader may follow a run's next-run hint instead of probing the table only when
 * the hinted run is not dead and starts with the wanted hash, which is exactly the run the table
 * would give it (a hint is only a cache: the writer may drop it at any time). Table growth builds a
 * complete new table and publishes it through a volatile field.
 *
 * <h2>Cost</h2>
 * A lookup costs one table probe (or a followed hint) per run on the request's path, plus a
 * sequential comparison of hashes inside each run, and stops when no worker matches any more. Runs
 * are stretches of a chain with identical holders, so on the Mooncake trace a 500-block path crosses
 * about 10 runs (see bench/RESULTS.md). Writes cost O(blocks in the event) plus, when an event
 * splits a run, O(blocks after the split point in that run), plus the hint sweep, which visits the
 * live runs after the retired runs held more blocks than are indexed (O(1) per retired block);
 * {@code Cleared} and {@code expire} visit all runs (respectively all runs with approximate entries).
 */
package io.tierroute.selector.index;
