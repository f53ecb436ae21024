#!/usr/bin/env python3
"""variant_rows.py V1 V2 ...: markdown rows 'TTFT mean / p99 / JCT mean' of tierroute-fitted per workload@load, two tables."""
import csv, sys, os
OUT = os.environ.get('OUT', '/tmp/r6/out')  # where variant_table.sh wrote its runs; peers under OUT/peers
W1 = [('mooncake', [2.5, 2.75, 3.0]), ('agentic-pcie', [1.0, 1.25])]
W2 = [('chat', [1.0, 2.0]), ('cpu-overflow', [1.0, 2.0]), ('agentic', [1.0, 2.0]), ('llmd-blog', [0.5, 1.0, 3.0])]
if os.environ.get('ALL'):  # every cell of the table (the round "output forest" loses at Mooncake 1, cpu-overflow 1.5)
    W1 = [('mooncake', [1.0, 2.5, 2.75, 3.0]), ('agentic-pcie', [1.0, 1.25])]
    W2 = [('chat', [1.0, 2.0, 4.0]), ('cpu-overflow', [1.0, 1.5, 2.0]), ('agentic', [1.0, 2.0]), ('llmd-blog', [0.5, 1.0, 2.0, 3.0])]
PEERS = {'least-loaded','sglang-cache-aware','dynamo','dynamo-2025','llmd-precise','llmd-approx','llmd-tiered-cpu'}
def get(v, w, L):
    if v == 'best-peer':
        rs = [r for r in csv.DictReader(open(f'{OUT}/peers/{w}/results.csv')) if r['policy'] in PEERS and float(r['load']) == L]
        return ' / '.join(f"{min(float(r[c]) for r in rs):.3f}" for c in ('ttft_mean_s', 'ttft_p99_s', 'jct_mean_s'))
    p = f'{OUT}/{v}/{w}/results.csv'
    if not os.path.exists(p): return '—'
    for r in csv.DictReader(open(p)):
        if r['policy'] == 'tierroute-fitted' and float(r['load']) == L:
            return f"{float(r['ttft_mean_s']):.3f} / {float(r['ttft_p99_s']):.3f} / {float(r['jct_mean_s']):.3f}"
    return '—'
for W in (W1, W2):
    print('| variant | ' + ' | '.join(f'{w} {L:g}' for w, Ls in W for L in Ls) + ' |')
    for v in sys.argv[1:]:
        print(f'| {v} | ' + ' | '.join(get(v, w, L) for w, Ls in W for L in Ls) + ' |')
    print()
