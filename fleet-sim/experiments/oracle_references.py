#!/usr/bin/env python3
"""oracle_references.py ORACLE_OUT TTFT_OUT [SEEDS]: the two clairvoyant references against the peers and tierroute-fitted.

ORACLE_OUT/seedS/<workload>/results.csv holds `oracle` runs, TTFT_OUT/seedS/<workload>/results.csv `oracle-ttft` runs
(variant_table.sh with POL=oracle / POL=oracle-ttft and NAME=seedS). Peers and tierroute-fitted come from the routing
rounds' trees (PEERS_OUT, FITTED_OUT; seed 1 at the root, seed S under seedS/). Per seed and cell, mean TTFT (s): oracle,
oracle-ttft, the best peer, tierroute-fitted, and tierroute-fitted over the better reference (the lower of the two
oracles' mean TTFT); then the counts the README quotes."""
import csv, os, sys

ORACLE_OUT, TTFT_OUT = sys.argv[1], sys.argv[2]
SEEDS = (sys.argv[3] if len(sys.argv) > 3 else '1,2,3').split(',')
PEERS_OUT = os.environ.get('PEERS_OUT', '/tmp/r9/out')
FITTED_OUT = os.environ.get('FITTED_OUT', '/tmp/route-jct/out')
PEERS = ['least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu']
WORKLOADS = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']
METRIC = os.environ.get('METRIC', 'ttft_mean_s')


def read(path):
    """{load: {policy: value of METRIC}} from one results.csv ({} when absent)."""
    out = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            out.setdefault(float(r['load']), {})[r['policy']] = float(r[METRIC])
    return out


def tree(root, sub, seed):
    return f'{root}/{sub}' if seed == '1' else f'{root}/seed{seed}/{sub}'


for seed in SEEDS:
    print(f'seed {seed}, {METRIC}: workload load | oracle | oracle-ttft | best peer | tierroute-fitted | fitted / better oracle')
    ttft_below_peer = fitted_within = cells = 0
    for w in WORKLOADS:
        oracle = read(f'{ORACLE_OUT}/seed{seed}/{w}/results.csv')
        ttft = read(f'{TTFT_OUT}/seed{seed}/{w}/results.csv')
        peers = read(tree(PEERS_OUT, 'peers', seed) + f'/{w}/results.csv')
        fitted = read(tree(FITTED_OUT, 'kept', seed) + f'/{w}/results.csv')
        for load in sorted(ttft):
            o, t = oracle[load]['oracle'], ttft[load]['oracle-ttft']
            best_name = min((p for p in PEERS if p in peers[load]), key=lambda p: peers[load][p])
            best = peers[load][best_name]
            f = fitted[load]['tierroute-fitted']
            ref = min(o, t)
            cells += 1
            ttft_below_peer += t <= best
            fitted_within += f <= 1.10 * ref
            print(f'{w} {load:g} | {o:.3f} | {t:.3f} | {best:.3f} ({best_name}) | {f:.3f} | {f / ref:.3f}')
    print(f'seed {seed}: oracle-ttft at or below the best peer in {ttft_below_peer} of {cells} cells; '
          f'tierroute-fitted within 10 % of the better oracle in {fitted_within} of {cells}')
    print()
