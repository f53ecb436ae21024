#!/usr/bin/env python3
"""oracle_variants_table.py OUT NAME...: the "Oracle round" variants, seed 1: mean TTFT per Mooncake and agentic-pcie
cell (s) and, over the other twelve cells, how many are at or below the best peer (OUT/NAME/seed1/<workload>/results.csv;
peers from PEERS_OUT, default /tmp/r9/out/peers)."""
import csv, os, sys
OUT, names = sys.argv[1], sys.argv[2:]
PEERS_OUT = os.environ.get('PEERS_OUT', '/tmp/r9/out/peers')
PEERS = ['least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu']
HARD = [('mooncake', 1.0), ('mooncake', 2.5), ('mooncake', 2.75), ('mooncake', 3.0), ('agentic-pcie', 1.0), ('agentic-pcie', 1.25)]
LIGHT = ['chat', 'cpu-overflow', 'agentic', 'llmd-blog']

def rows(path):
    out = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            out.setdefault(float(r['load']), {})[r['policy']] = r
    return out

def best_peer(w, L):
    rs = rows(f'{PEERS_OUT}/{w}/results.csv')[L]
    return min(float(rs[p]['ttft_mean_s']) for p in PEERS)

print('| variant | ' + ' | '.join(f'{w} {L:g}' for w, L in HARD) + ' | other 12 cells ≤ best peer |')
print('|---|' + '---|' * (len(HARD) + 1))
print('| best peer | ' + ' | '.join(f'{best_peer(w, L):.3f}' for w, L in HARD) + ' | – |')
for n in names:
    cells = []
    for w, L in HARD:
        r = rows(f'{OUT}/{n}/seed1/{w}/results.csv').get(L, {}).get('oracle')
        cells.append(f'{float(r["ttft_mean_s"]):.3f}' if r else '–')
    ok = tot = 0
    for w in LIGHT:
        for L, rs in rows(f'{OUT}/{n}/seed1/{w}/results.csv').items():
            tot += 1
            ok += float(rs['oracle']['ttft_mean_s']) <= best_peer(w, L)
    print(f'| {n} | ' + ' | '.join(cells) + f' | {ok} of {tot} |' if tot else f'| {n} | ' + ' | '.join(cells) + ' | not run |')
