#!/usr/bin/env python3
"""measured_tables.py [DIR]: the README's "Measured" figures from the six `bench routing` runs under DIR
(default bench/out, as the README's commands write them: DIR/routing-<workload>/results.csv): the per-load tables
of Mooncake and agentic-pcie (the strongest peers, tierroute-default, tierroute-fitted, the oracle) and the
"best peer / tierroute-fitted" line per workload and load (best of the seven peers per column; the references against the better oracle: oracle_references.py)."""
import csv, sys
D = sys.argv[1] if len(sys.argv) > 1 else 'bench/out'
PEERS = ['least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu']
SHOWN = ['sglang-cache-aware', 'dynamo', 'llmd-precise', 'llmd-approx', 'tierroute-default', 'tierroute-fitted', 'oracle',
         'oracle-ttft']
COLS = ['ttft_mean_s', 'ttft_p50_s', 'ttft_p90_s', 'ttft_p99_s', 'jct_mean_s', 'jct_p99_s', 'hit_hbm', 'hit_cpu',
        'pcie_util', 'gpu_util']
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']

def load(w):
    out = {}
    for r in csv.DictReader(open(f'{D}/routing-{w}/results.csv')):
        out.setdefault(float(r['load']), {})[r['policy']] = r
    return out

def num(v):
    x = float(v)
    return f'{x:.1f}' if x >= 100 else f'{x:.3f}'

for w in ('mooncake', 'agentic-pcie'):
    for L, rs in sorted(load(w).items()):
        print(f'{w}:\n\n| load {L:g} | TTFT mean | p50 | p90 | p99 | JCT mean | JCT p99 | hit HBM | hit CPU | PCIe util | GPU busy | preempt. |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|')
        for p in SHOWN:
            r = rs[p]
            print(f'| {p} | ' + ' | '.join(num(r[c]) for c in COLS) + f' | {int(float(r["preemptions"]))} |')
        print()
print('```')
for w in W:
    for L, rs in sorted(load(w).items()):
        f = rs['tierroute-fitted']
        parts = []
        for c in ('ttft_mean_s', 'ttft_p99_s', 'jct_mean_s'):
            best = min(PEERS, key=lambda p: float(rs[p][c]))
            parts.append(f'{c} {float(rs[best][c]) / float(f[c]):.3f} ({best} {float(rs[best][c]):.3f} / {float(f[c]):.3f})')
        print(f'final-{w} @ {L:g}: ' + '; '.join(parts))
print('```')
