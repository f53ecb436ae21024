#!/usr/bin/env python3
"""oracle_round_table.py ORACLE_OUT [SEEDS]: the README's "Oracle round" figures.

ORACLE_OUT holds the oracle-only runs as run_oracle_round.sh writes them (ORACLE_OUT/<name>/seed<S>/<workload>/results.csv,
name `new` and `old`; the old oracle's seed-1 rows are read from the peers' tree, where they were run). Peers and
tierroute-fitted come from the trees the routing rounds keep (PEERS_OUT, FITTED_OUT; seed 1 at the root, seed S under
seedS/). Prints per seed the per-cell table (mean TTFT: old oracle, new oracle, best peer, tierroute-fitted, new / best
peer, tierroute-fitted / new), the new oracle's rows in the "Measured" tables' format (seed 1), and the counts."""
import csv, os, sys

OUT = sys.argv[1]
SEEDS = (sys.argv[2] if len(sys.argv) > 2 else '1,2,3').split(',')
PEERS_OUT = os.environ.get('PEERS_OUT', '/tmp/r9/out')
FITTED_OUT = os.environ.get('FITTED_OUT', '/tmp/route-jct/out')
PEERS = ['least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu']
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']
COLS = ['ttft_mean_s', 'ttft_p50_s', 'ttft_p90_s', 'ttft_p99_s', 'jct_mean_s', 'jct_p99_s', 'hit_hbm', 'hit_cpu',
        'pcie_util', 'gpu_util']


def rows(path, policy=None):
    if not os.path.exists(path):
        return {}
    out = {}
    for r in csv.DictReader(open(path)):
        out.setdefault(float(r['load']), {})[r['policy']] = r
    return out


def seed_dir(root, sub, s):
    return f'{root}/{sub}' if s == '1' else f'{root}/seed{s}/{sub}'


def num(v):
    x = float(v)
    return f'{x:.1f}' if x >= 100 else f'{x:.3f}'


metric = os.environ.get('METRIC', 'ttft_mean_s')
for s in SEEDS:
    print(f'seed {s} ({metric})\n')
    print('| workload | load | old oracle | new oracle | best peer | tierroute-fitted | new / best peer | fitted / new | preempt. old → new |')
    print('|---|---|---|---|---|---|---|---|---|')
    n_ok = n = below = within = 0
    for w in W:
        new = rows(f'{OUT}/new/seed{s}/{w}/results.csv')
        old = rows(f'{PEERS_OUT}/peers/{w}/results.csv') if s == '1' else rows(f'{OUT}/old/seed{s}/{w}/results.csv')
        peers = rows(f'{seed_dir(PEERS_OUT, "peers", s)}/{w}/results.csv')
        fitted = rows(f'{seed_dir(FITTED_OUT, "kept", s)}/{w}/results.csv')
        for L in sorted(new):
            o = new[L]['oracle']
            bp = min(PEERS, key=lambda p: float(peers[L][p][metric]))
            b = float(peers[L][bp][metric])
            f = float(fitted[L]['tierroute-fitted'][metric])
            x = float(o[metric])
            old_r = old.get(L, {}).get('oracle')
            n += 1
            n_ok += x <= b
            below += f < x
            within += f <= 1.1 * x
            print(f'| {w} | {L:g} | {num(old_r[metric]) if old_r else "–"} | {num(x)} | {num(b)} ({bp}) | {num(f)} | '
                  f'{x / b:.3f} | {f / x:.3f} | {int(float(old_r["preemptions"])) if old_r else "–"} → {int(float(o["preemptions"]))} |')
    print(f'\nnew oracle at or below the best peer in {n_ok} of {n} cells; tierroute-fitted below the new oracle in {below}, '
          f'within 10 % of it (or below) in {within}\n')

if '1' in SEEDS:
    print('new oracle rows for the "Measured" tables (seed 1), and tierroute-fitted / oracle TTFT mean per cell:\n')
    for w in W:
        new = rows(f'{OUT}/new/seed1/{w}/results.csv')
        fitted = rows(f'{FITTED_OUT}/kept/{w}/results.csv')
        for L in sorted(new):
            o = new[L]['oracle']
            if w in ('mooncake', 'agentic-pcie'):
                print(f'{w} {L:g}: | oracle | ' + ' | '.join(num(o[c]) for c in COLS) + f' | {int(float(o["preemptions"]))} |')
            f = float(fitted[L]['tierroute-fitted']['ttft_mean_s'])
            print(f'{w} {L:g}: vs oracle TTFT mean {f / float(o["ttft_mean_s"]):.3f}; oracle wall_s {o["wall_s"]}')

if os.environ.get('COMPACT'):
    # one row per cell over the seeds given: "old / new / best peer / fitted" per seed
    print('\n| workload | load | ' + ' | '.join(f'seed {s}: old / new / best peer / fitted' for s in SEEDS) + ' |')
    print('|---|---|' + '---|' * len(SEEDS))
    for w in W:
        for L in sorted(rows(f'{OUT}/new/seed{SEEDS[0]}/{w}/results.csv')):
            cells = []
            for s in SEEDS:
                new = rows(f'{OUT}/new/seed{s}/{w}/results.csv')[L]['oracle'][metric]
                old = (rows(f'{PEERS_OUT}/peers/{w}/results.csv') if s == '1' else rows(f'{OUT}/old/seed{s}/{w}/results.csv'))[L]['oracle'][metric]
                peers = rows(f'{seed_dir(PEERS_OUT, "peers", s)}/{w}/results.csv')[L]
                b = min(float(peers[p][metric]) for p in PEERS)
                f = rows(f'{seed_dir(FITTED_OUT, "kept", s)}/{w}/results.csv')[L]['tierroute-fitted'][metric]
                cells.append(f'{num(old)} / **{num(new)}** / {num(b)} / {num(f)}')
            print(f'| {w} | {L:g} | ' + ' | '.join(cells) + ' |')
