#!/usr/bin/env python3
"""multi_seed_verdict.py ROOT SEEDS V1 V2 ...: per variant (ROOT/seedN/V/<workload>/results.csv, peers in ROOT/seedN/peers),
over the seeds: cells > 3 % behind the best peer per seed and in all, the targets per seed, and the cells whose
geometric-mean ratio over the seeds is below 0.97. POLICY=name reads another policy's rows (default tierroute-fitted)."""
import csv, math, os, sys, statistics as st
from results_csv import best, read, num
POLICY = os.environ.get('POLICY', 'tierroute-fitted')
PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT')]
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']
def rows(p, peers):
    out = {}
    for r in read(p, lambda r: (r['policy'] in PEERS) if peers else (r['policy'] == POLICY)) or []:
        out.setdefault(float(r['load']), []).append(r)
    return out
def ratios(root, seed, v):
    res = {}
    for w in W:
        pe = rows(f'{root}/seed{seed}/peers/{w}/results.csv', True); vv = rows(f'{root}/seed{seed}/{v}/{w}/results.csv', False)
        for L, rs in vv.items():
            if L not in pe: continue
            for c, n in COLS:
                x = best(r[c] for r in pe[L]) / num(rs[0][c])
                if not math.isnan(x):  # a policy that finished nothing there: no ratio
                    res[(w, L, n)] = x
    return res
root, seeds, variants = sys.argv[1], [int(s) for s in sys.argv[2].split(',')], sys.argv[3:]
for v in variants:
    per = {s: ratios(root, s, v) for s in seeds}
    behind = [sum(1 for x in per[s].values() if x < 0.97) for s in seeds]
    cells = [len(per[s]) for s in seeds]
    tg = lambda k: ' '.join(f"{per[s].get(k, float('nan')):.3f}" for s in seeds)
    allk = sorted(set().union(*[set(per[s]) for s in seeds]))
    gm = {k: st.geometric_mean([per[s][k] for s in seeds if k in per[s]]) for k in allk}
    print(f"{v}: behind per seed {behind} (cells {cells}) total {sum(behind)}")
    for k in [('mooncake', 2.75, 'p99'), ('mooncake', 2.75, 'JCT'), ('agentic-pcie', 1.0, 'p99'), ('agentic-pcie', 1.25, 'p99')]:
        print(f"   {k[0]} {k[1]:g} {k[2]}: {tg(k)}  geo {gm.get(k, float('nan')):.3f}")
    print('   cells geo < 0.97:', ', '.join(f'{w} {L:g} {n} {gm[(w,L,n)]:.3f}' for (w, L, n) in allk if gm[(w, L, n)] < 0.97) or 'none')
