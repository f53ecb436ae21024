#!/usr/bin/env python3
"""load_band.py ROOT [LOADS]: the Mooncake target across the issue's 3-10x band. Reads ROOT/seedN/{peers,final}/mooncake/
results.csv (peers and tierroute-fitted at load 1 and the band's loads, seeds 1-10); per load: the best peer's p99 over
its own load-1 p99 (the "unloaded value") per seed, and the geometric mean over the seeds of best peer / tierroute-fitted
for TTFT p99, mean JCT and mean TTFT (with the p99 ratio's range)."""
import csv, math, os, sys
root = sys.argv[1]
loads = [float(x) for x in (sys.argv[2] if len(sys.argv) > 2 else '2.6,2.7,2.8,2.9').split(',')]
def rows(p):
    d = {}
    for r in csv.DictReader(open(p)):
        d.setdefault(float(r['load']), {})[r['policy']] = r
    return d
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
res = {}
for s in range(1, 11):
    pp, fp = f'{root}/seed{s}/peers/mooncake/results.csv', f'{root}/seed{s}/final/mooncake/results.csv'
    if not (os.path.exists(pp) and os.path.exists(fp)):
        continue
    pe, tr = rows(pp), rows(fp)
    best = lambda L, c: min(float(r[c]) for r in pe[L].values())
    unloaded = best(1.0, 'ttft_p99_s')
    for L in loads:
        t = tr[L]['tierroute-fitted']
        res.setdefault(L, []).append((best(L, 'ttft_p99_s') / unloaded, best(L, 'ttft_p99_s') / float(t['ttft_p99_s']),
                                      best(L, 'jct_mean_s') / float(t['jct_mean_s']), best(L, 'ttft_mean_s') / float(t['ttft_mean_s'])))
for L, v in sorted(res.items()):
    p99 = [x[1] for x in v]
    print(f"load {L:g}: {len(v)} seeds; best peer p99 / unloaded {min(x[0] for x in v):.1f}-{max(x[0] for x in v):.1f}x; "
          f"TTFT p99 {geo(p99):.3f} ({min(p99):.3f}-{max(p99):.3f}); JCT {geo([x[2] for x in v]):.3f}; TTFT mean {geo([x[3] for x in v]):.3f}")
