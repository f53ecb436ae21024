#!/usr/bin/env python3
"""overload_per_seed.py ROOT A B: variant B against variant A on the overload cells seed by seed
(ROOT/seedN/{A,B,peers}/{co,n0,nv}/results.csv from overload_table.sh, seeds 1-20): per cell, load and column, the seeds
where B's best-peer ratio is more than 3 % worse or better than A's, and each one's median ratio over the seeds.
POLICY=name reads another policy's rows (default tierroute-fitted)."""
import csv, os, statistics as st, sys

PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = ['ttft_mean_s', 'ttft_p99_s', 'jct_mean_s']
POLICY = os.environ.get('POLICY', 'tierroute-fitted')
root, a_name, b_name = sys.argv[1].rstrip('/'), sys.argv[2], sys.argv[3]


def ours(variant, seed, cell):
    path = f'{root}/seed{seed}/{variant}/{cell}/results.csv'
    return {r['load']: r for r in csv.DictReader(open(path)) if r['policy'] == POLICY} if os.path.exists(path) else {}


for cell in ['co', 'n0', 'nv']:
    pairs = {}
    for seed in range(1, 21):
        peers_path = f'{root}/seed{seed}/peers/{cell}/results.csv'
        if not os.path.exists(peers_path):
            continue
        best = {}
        for r in csv.DictReader(open(peers_path)):
            if r['policy'] in PEERS:
                best.setdefault(r['load'], []).append(r)
        a, b = ours(a_name, seed, cell), ours(b_name, seed, cell)
        for load in set(a) & set(b) & set(best):
            for c in COLS:
                top = min(float(p[c]) for p in best[load])
                pairs.setdefault((load, c), []).append((top / float(a[load][c]), top / float(b[load][c])))
    for (load, c), xs in sorted(pairs.items()):
        worse = sum(y < 0.97 * x for x, y in xs)
        better = sum(y > 1.03 * x for x, y in xs)
        print(f'{cell} {load} {c:12s} {len(xs)} seeds: {b_name} worse in {worse}, better in {better}; median '
              f'{st.median(x for x, _ in xs):.3f} -> {st.median(y for _, y in xs):.3f}')
