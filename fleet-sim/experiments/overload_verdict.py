#!/usr/bin/env python3
"""overload_verdict.py ROOT V1 V2 ...: per variant (ROOT/seedN/V/{n0,co,nv}/results.csv from overload_table.sh, the
seven peers in ROOT/seedN/peers), per cell and column: the geometric mean over the seeds of best peer / ours, its
minimum, the seeds more than 3 % behind and the seeds collapsed (below 0.33x). POLICY=name reads another policy's rows
(default tierroute-fitted)."""
import csv, math, os, sys, glob, statistics as st
from results_csv import best, read, num
PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT')]
CELLS = {'n0': 'nvme-overflow --nvme-tokens 0', 'co': 'cpu-overflow', 'nv': 'nvme-overflow'}
POLICY = os.environ.get('POLICY', 'tierroute-fitted')

def rows(p, peers):
    out = {}
    for r in read(p, lambda r: (r['policy'] in PEERS) if peers else r['policy'] == POLICY) or []:
        out.setdefault(float(r['load']), []).append(r)
    return out

root, variants = sys.argv[1].rstrip('/'), sys.argv[2:]
seeds = sorted(int(d[len(root) + 5:]) for d in glob.glob(f'{root}/seed*'))
for v in variants:
    print('==', v)
    for w, label in CELLS.items():
        per = {}
        for s in seeds:
            pe, ours = rows(f'{root}/seed{s}/peers/{w}/results.csv', True), rows(f'{root}/seed{s}/{v}/{w}/results.csv', False)
            for load, rs in ours.items():
                for c, n in COLS:
                    x = best(r[c] for r in pe[load]) / num(rs[0][c])
                    if not math.isnan(x):  # a policy that finished nothing there: no ratio
                        per.setdefault((load, n), []).append(x)
        for (load, n), xs in sorted(per.items()):
            print(f'  {label} @ {load:g} {n:4s}: geo {st.geometric_mean(xs):.3f} min {min(xs):.3f} '
                  f'behind {sum(x < 0.97 for x in xs)}/{len(xs)} collapsed {sum(x < 0.33 for x in xs)}')
