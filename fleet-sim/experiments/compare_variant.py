#!/usr/bin/env python3
"""compare_variant.py VARIANT [BASE]: per workload/load TTFT mean / p99 / JCT mean of tierroute-fitted, ratio best-peer/variant,
and flags where the variant is >3% worse than best peer while base is not (or worse than base's ratio)."""
import csv, sys, os
OUT = os.environ.get('OUT', '/tmp/r6/out')  # where variant_table.sh wrote its runs; peers under OUT/peers
peers_dir = f'{OUT}/peers'; out = OUT
PEERS = {'least-loaded','sglang-cache-aware','dynamo','dynamo-2025','llmd-precise','llmd-approx','llmd-tiered-cpu'}
cols = ['ttft_mean_s','ttft_p99_s','jct_mean_s']
W = ['mooncake','agentic-pcie','chat','cpu-overflow','agentic','llmd-blog']
def load(d, w, pol=None):
    p = f'{d}/{w}/results.csv'
    if not os.path.exists(p): return {}
    res = {}
    for r in csv.DictReader(open(p)):
        if pol and r['policy'] != pol: continue
        if not pol and r['policy'] not in PEERS: continue
        res.setdefault(float(r['load']), []).append(r)
    return res
var = sys.argv[1]; base = sys.argv[2] if len(sys.argv) > 2 else 'base'
tot = {'var': [], 'base': []}
for w in W:
    pe = load(peers_dir, w); v = load(f'{out}/{var}', w, 'tierroute-fitted'); b = load(f'{out}/{base}', w, 'tierroute-fitted')
    for L in sorted(v):
        best = [min(float(r[c]) for r in pe[L]) for c in cols]
        vv = [float(v[L][0][c]) for c in cols]; bb = [float(b[L][0][c]) for c in cols] if L in b else [float('nan')]*3
        rv = [x/y for x, y in zip(best, vv)]; rb = [x/y for x, y in zip(best, bb)]
        flag = ''
        for i, c in enumerate(['ttft', 'p99', 'jct']):
            if rv[i] < 0.97 and rv[i] < rb[i] - 0.005: flag += f' LOSS-{c}'
            if rv[i] > rb[i] + 0.005: flag += f' +{c}'
        print(f'{w:13s} {L:5.2f}  var {vv[0]:8.3f} {vv[1]:8.3f} {vv[2]:8.3f} | ratio {rv[0]:.3f} {rv[1]:.3f} {rv[2]:.3f} | base {rb[0]:.3f} {rb[1]:.3f} {rb[2]:.3f}{flag}')
