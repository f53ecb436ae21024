#!/usr/bin/env python3
"""variant_verdict.py V1 V2 ...: for each variant (a variant_table.sh run under $OUT), the cells (workload@load
column) where it is more than 3 % worse than the best peer while the committed run ('base') is not, and the
target ratios (best peer / tierroute-fitted): Mooncake 2.75 p99 and JCT mean, agentic-pcie p99 at 1 and 1.25."""
import csv, os, sys
OUT = os.environ.get('OUT', '/tmp/r6/out')
PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT')]
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']

def rows(d, w, peers):
    p = f'{OUT}/{d}/{w}/results.csv'
    if not os.path.exists(p):
        return {}
    out = {}
    for r in csv.DictReader(open(p)):
        if (r['policy'] in PEERS) if peers else (r['policy'] == 'tierroute-fitted'):
            out.setdefault(float(r['load']), []).append(r)
    return out

def ratios(d):
    res = {}
    for w in W:
        pe, v = rows('peers', w, True), rows(d, w, False)
        for L, rs in v.items():
            for c, n in COLS:
                res[(w, L, n)] = min(float(r[c]) for r in pe[L]) / float(rs[0][c])
    return res

base = ratios('base')
for v in sys.argv[1:]:
    r = ratios(v)
    losses = [f'{w} {L:g} {n} {r[k]:.3f}' for k in sorted(r) for (w, L, n) in [k] if r[k] < 0.97 <= base[k]]
    t = lambda w, L, n: f"{r.get((w, L, n), float('nan')):.3f}"
    print(f"{v}: targets Mooncake 2.75 p99 {t('mooncake', 2.75, 'p99')} JCT {t('mooncake', 2.75, 'JCT')}, "
          f"agentic-pcie p99 {t('agentic-pcie', 1.0, 'p99')} / {t('agentic-pcie', 1.25, 'p99')}; "
          f"new >3 % losses: {', '.join(losses) if losses else 'none'}")
