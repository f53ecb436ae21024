#!/usr/bin/env python3
"""tail_ageing_table.py VROOT BAND FULL VARIANT...: the tail-ageing round's table (ROUNDS.md, "Tail-ageing round").

Reads each variant's tierroute-fitted rows at VROOT/V/seedN/{mooncake,agentic-pcie}/results.csv (seeds 1-10) and the
peers' rows of the same seed at BAND/seedN/peers/mooncake (the band's loads) and FULL/seedN/peers/{mooncake,agentic-pcie}
(the full table's loads). Per cell, the geometric mean over the seeds of best peer / variant (every peer, round-robin
and random included; the best per metric); prints one markdown row per variant."""
import csv, math, os, sys

# The seven peers of cell_ratios.py, plus round-robin and random as load_band.py counts them (neither is ever the best).
PEERS = {'round-robin', 'random', 'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise',
         'llmd-approx', 'llmd-tiered-cpu'}
MOONCAKE_LOADS = (2.75, 2.85, 2.9, 2.95)


def rows(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def best(peer_rows, load, column):
    values = [float(r[column]) for r in peer_rows if r['policy'] in PEERS and abs(float(r['load']) - load) < 1e-9]
    if not values:
        raise SystemExit(f'no peer row at load {load} for {column}')
    return min(values)


def ratios(vroot, band, full, variant):
    out = {}
    for s in range(1, 11):
        for workload in ('mooncake', 'agentic-pcie'):
            mine = rows(f'{vroot}/{variant}/seed{s}/{workload}/results.csv')
            if not mine:
                continue
            peers = rows(f'{full}/seed{s}/peers/{workload}/results.csv')
            if workload == 'mooncake':
                peers += rows(f'{band}/seed{s}/peers/mooncake/results.csv')
            for r in mine:
                load = float(r['load'])
                for column in ('ttft_p99_s', 'ttft_mean_s', 'jct_mean_s'):
                    out.setdefault((workload, load, column), []).append(best(peers, load, column) / float(r[column]))
    return out


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    vroot, band, full = sys.argv[1:4]
    print('| variant | Mooncake p99 2.75 / 2.85 / 2.9 / 2.95 (seeds ≥ 1.3× at 2.85) | Mooncake mean JCT 2.95 '
          '| agentic-pcie p99 1 / 1.25 | agentic-pcie 1.25 mean TTFT |')
    print('|---|---|---|---|---|')
    for variant in sys.argv[4:]:
        r = ratios(vroot, band, full, variant)
        needed = [('mooncake', L, 'ttft_p99_s') for L in MOONCAKE_LOADS] + [('mooncake', 2.95, 'jct_mean_s')] + [
            ('agentic-pcie', L, c) for L, c in ((1.0, 'ttft_p99_s'), (1.25, 'ttft_p99_s'), (1.25, 'ttft_mean_s'))]
        missing = [k for k in needed if k not in r]
        if missing:
            raise SystemExit(f'{variant}: no rows for {missing} under {vroot}/{variant}')
        p99 = ' / '.join(f"{geo(r[('mooncake', L, 'ttft_p99_s')]):.3f}" for L in MOONCAKE_LOADS)
        at285 = r[('mooncake', 2.85, 'ttft_p99_s')]
        met = sum(x >= 1.3 for x in at285)
        print(f"| {variant} | {p99} ({met} of {len(at285)}) | {geo(r[('mooncake', 2.95, 'jct_mean_s')]):.3f} "
              f"| {geo(r[('agentic-pcie', 1.0, 'ttft_p99_s')]):.3f} / {geo(r[('agentic-pcie', 1.25, 'ttft_p99_s')]):.3f} "
              f"| {geo(r[('agentic-pcie', 1.25, 'ttft_mean_s')]):.3f} |")


if __name__ == '__main__':
    main()
