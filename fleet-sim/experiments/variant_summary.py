#!/usr/bin/env python3
"""variant_summary.py V1 V2 ...: the round's verdict table as markdown rows, one per variant (a variant_table.sh run
under $OUT; 'base' = the committed model): the targets (best peer / tierroute-fitted: Mooncake 2.75 p99 and mean JCT,
agentic-pcie p99 at 1 and 1.25), the cells newly more than 3 % behind the best peer (where 'base' is not), and how
many cells in all are more than 3 % behind. Same definitions as variant_verdict.py."""
import csv, os, sys
OUT = os.environ.get('OUT', '/tmp/r6/out')
PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT')]
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']

def rows(d, w, peers):
    p = f'{OUT}/{d}/{w}/results.csv'
    out = {}
    if os.path.exists(p):
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
print('| variant | Mooncake 2.75 p99 / JCT | agentic-pcie p99 at 1 / 1.25 | new > 3 % losses | cells > 3 % behind |')
print('|---|---|---|---|---|')
for v in sys.argv[1:]:
    r = ratios(v)
    t = lambda w, L, n: f"{r.get((w, L, n), float('nan')):.3f}"
    new = [f'{w} {L:g} {n} {r[k]:.3f}' for k in sorted(r) for (w, L, n) in [k] if r[k] < 0.97 <= base[k]]
    behind = sum(1 for x in r.values() if x < 0.97)
    print(f"| {v} | {t('mooncake', 2.75, 'p99')} / {t('mooncake', 2.75, 'JCT')} | {t('agentic-pcie', 1.0, 'p99')} / "
          f"{t('agentic-pcie', 1.25, 'p99')} | {', '.join(new) if new else 'none'} | {behind} |")
