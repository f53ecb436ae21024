"""peer_ratios.py DIR POLICY...: per load, POLICY against the best of the seven peers per column and seed, geometric mean
over the seeds (and min-max), from DIR/seed-N/results.csv (a `bench routing --seed A-B` run)."""
import csv, glob, math, sys, collections
PEERS = ['least-loaded','sglang-cache-aware','dynamo','dynamo-2025','llmd-precise','llmd-approx','llmd-tiered-cpu']
COLS = ['ttft_mean_s','ttft_p90_s','ttft_p99_s','jct_mean_s']
d, pols = sys.argv[1], sys.argv[2:]
acc = collections.defaultdict(list)
behind = collections.Counter()
for f in sorted(glob.glob(f'{d}/seed-*/results.csv')):
    rows = list(csv.DictReader(open(f)))
    for load in sorted({r['load'] for r in rows}, key=float):
        by = {r['policy']: r for r in rows if r['load'] == load}
        for c in COLS:
            best = min(float(by[p][c]) for p in PEERS if p in by)
            for p in pols:
                if p in by:
                    x = best / float(by[p][c])
                    acc[(load, p, c)].append(x)
                    if x < 1/1.03 and c != 'ttft_p90_s': behind[(p, load, c)] += 1
for (load, p, c), xs in sorted(acc.items(), key=lambda k: (float(k[0][0]), k[0][1], COLS.index(k[0][2]))):
    g = math.exp(sum(map(math.log, xs)) / len(xs))
    print(f'{load:5s} {p:18s} {c:12s} {g:6.3f}  ({min(xs):.3f}-{max(xs):.3f}, {len(xs)} seeds)')
print('cell-seeds > 3 % behind (TTFT mean, p99, JCT mean):', dict(behind))
