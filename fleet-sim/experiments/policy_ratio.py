#!/usr/bin/env python3
"""policy_ratio.py SEEDS A B [WORKLOADS]: B's figures over A's per cell (TTFT mean, p99, JCT mean, JCT p99), geometric
mean over SEEDS (comma-separated). A and B are ROOT:VARIANT:POLICY, read from ROOT/seedN/VARIANT/<workload>/results.csv
(the layout variant_table.sh writes with OUT=ROOT/seedN): e.g. /tmp/rep:v:tierroute-fitted /tmp/rep:v:tierroute-2-replicas
("Replicas round"). Above 1: B is slower. WORKLOADS: comma-separated, default all six."""
import math
import sys

from results_csv import read, num

seeds = [int(x) for x in sys.argv[1].split(',')]
A, B = (tuple(s.split(':')) for s in sys.argv[2:4])
W = sys.argv[4].split(',') if len(sys.argv) > 4 else ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic',
                                                       'llmd-blog']
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT'), ('jct_p99_s', 'JCT p99')]


def rows(spec, seed, w):
    root, variant, policy = spec
    p = f'{root}/seed{seed}/{variant}/{w}/results.csv'
    got = read(p, lambda r: r['policy'] == policy)
    return None if got is None else {r['load']: r for r in got}


for w in W:
    logs = {}
    for s in seeds:
        a, b = rows(A, s, w), rows(B, s, w)
        if a is None or b is None:
            continue
        for load in a.keys() & b.keys():
            for c, n in COLS:
                x = num(b[load][c]) / num(a[load][c])
                if x > 0:  # NaN (one finished nothing there) has no ratio
                    logs.setdefault((load, n), []).append(math.log(x))
    for load in sorted({l for l, _ in logs}, key=float):
        print(f"{w:13s} {load:5s} " + "  ".join(f"{n} {math.exp(sum(logs[(load, n)]) / len(logs[(load, n)])):.3f}"
                                            for _, n in COLS) + f"  (seeds {len(logs[(load, 'TTFT')])})")
