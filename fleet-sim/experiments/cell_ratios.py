#!/usr/bin/env python3
"""cell_ratios.py ROOT SEEDS CELLS V1 V2 ...: a header and a markdown row per variant, best peer / tierroute-fitted
as "TTFT mean / p99 / JCT mean" per cell (geometric mean over SEEDS), then the columns more than 3 % behind over the
seeds in the workloads the variant ran (ONLY=w1,w2 counts those workloads alone). CELLS: workload@load,
comma-separated (e.g. llmd-blog@0.5,agentic@1); a cell the variant did not run prints an empty column. Reads
ROOT/seedN/{peers,V}/<workload>/results.csv, the layout variant_table.sh writes (ROUNDS.md, "Frontier round").
POLICY=name reads another policy's rows (default tierroute-fitted)."""
import csv
import math
import os
import sys

PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = ('ttft_mean_s', 'ttft_p99_s', 'jct_mean_s')
POLICY = os.environ.get('POLICY', 'tierroute-fitted')


def by_load(path, keep):
    out = {}
    if os.path.exists(path):
        with open(path, newline='') as f:
            for r in csv.DictReader(f):
                if keep(r['policy']) and r['ttft_mean_s']:
                    out.setdefault(float(r['load']), []).append(r)
    return out


def ratios(root, seed, variant, workload):
    """{load: [best peer / POLICY per column]} for the loads the variant ran."""
    peers = by_load(f'{root}/seed{seed}/peers/{workload}/results.csv', lambda p: p in PEERS)
    ours = by_load(f'{root}/seed{seed}/{variant}/{workload}/results.csv', lambda p: p == POLICY)
    return {L: [min(float(r[c]) for r in peers[L]) / float(rs[0][c]) for c in COLS]
            for L, rs in ours.items() if L in peers}


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    root, seeds = sys.argv[1], [int(s) for s in sys.argv[2].split(',')]
    cells = []
    for spec in sys.argv[3].split(','):
        w, _, L = spec.partition('@')
        if not L:
            sys.exit(f"cell '{spec}': workload@load")
        cells.append((w, float(L)))
    workloads = sorted({w for w, _ in cells} | {'mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic',
                                                'llmd-blog'})
    counted = set(os.environ['ONLY'].split(',')) if os.environ.get('ONLY') else set(workloads)
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print('| variant | ' + ' | '.join(f'{w} {L:g}' for w, L in cells) + ' | columns > 3 % behind |')
    for v in sys.argv[4:]:
        per = {(s, w): ratios(root, s, v, w) for s in seeds for w in workloads}
        if not any(per.values()):
            listed = ','.join(map(str, seeds))
            sys.exit(f"{v}: no {POLICY} rows under {root}/seed{{{listed}}}/{v} with peers beside")
        row = []
        for w, L in cells:
            got = [per[(s, w)][L] for s in seeds if L in per[(s, w)]]
            row.append(' / '.join(f'{geo([g[i] for g in got]):.3f}' for i in range(len(COLS))) if got else '')
        behind = sum(1 for (_, w), r in per.items() if w in counted for cols in r.values() for x in cols if x < 0.97)
        print(f"| {v} | {' | '.join(row)} | {behind} |")


if __name__ == '__main__':
    main()
