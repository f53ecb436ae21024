#!/usr/bin/env python3
"""variant_verdict.py [--table] V1 V2 ...: for each variant (a variant_table.sh run under $OUT; 'base' = the committed
model), the target ratios (best peer / tierroute-fitted: Mooncake 2.75 p99 and mean JCT, agentic-pcie p99 at 1 and
1.25), the cells (workload@load column) where it is more than 3 % worse than the best peer while 'base' is not, and
with --table the round's verdict table as markdown rows (one per variant) including how many cells in all are more
than 3 % behind."""
import math, os, sys
from results_csv import best, read, num
OUT = os.environ.get('OUT', '/tmp/r6/out')
PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT')]
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']
BEHIND = 0.97  # best peer / tierroute below this: more than 3 % worse

def rows(d, w, peers):
    p = f'{OUT}/{d}/{w}/results.csv'
    out = {}
    for r in read(p, lambda r: (r['policy'] in PEERS) if peers else (r['policy'] == 'tierroute-fitted')) or []:
        out.setdefault(float(r['load']), []).append(r)
    return out

def ratios(d):
    res = {}
    for w in W:
        pe, v = rows('peers', w, True), rows(d, w, False)
        for L, rs in v.items():
            for c, n in COLS:
                x = best(r[c] for r in pe[L]) / num(rs[0][c])
                if not math.isnan(x):  # a policy that finished nothing there: no ratio
                    res[(w, L, n)] = x
    return res

def main(args):
    table = '--table' in args
    variants = [a for a in args if a != '--table']
    base = ratios('base')
    if table:
        print('| variant | Mooncake 2.75 p99 / JCT | agentic-pcie p99 at 1 / 1.25 | new > 3 % losses | cells > 3 % behind |')
        print('|---|---|---|---|---|')
    for v in variants:
        r = ratios(v)
        t = lambda w, L, n: f"{r.get((w, L, n), float('nan')):.3f}"
        new = [f'{w} {L:g} {n} {r[k]:.3f}' for k in sorted(r) for (w, L, n) in [k] if r[k] < BEHIND <= base[k]]
        if table:
            behind = sum(1 for x in r.values() if x < BEHIND)
            print(f"| {v} | {t('mooncake', 2.75, 'p99')} / {t('mooncake', 2.75, 'JCT')} | {t('agentic-pcie', 1.0, 'p99')} / "
                  f"{t('agentic-pcie', 1.25, 'p99')} | {', '.join(new) if new else 'none'} | {behind} |")
        else:
            print(f"{v}: targets Mooncake 2.75 p99 {t('mooncake', 2.75, 'p99')} JCT {t('mooncake', 2.75, 'JCT')}, "
                  f"agentic-pcie p99 {t('agentic-pcie', 1.0, 'p99')} / {t('agentic-pcie', 1.25, 'p99')}; "
                  f"new >3 % losses: {', '.join(new) if new else 'none'}")

if __name__ == '__main__':
    main(sys.argv[1:])
