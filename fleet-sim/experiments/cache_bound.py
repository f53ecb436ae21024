#!/usr/bin/env python3
"""cache_bound.py BIG FULL [LOAD]: how much of the Mooncake JCT target a larger cache could buy (ROUNDS.md, "Frontier
round"). BIG is a `bench routing --seed ...` run at LOAD (default 2.75) with a CPU tier large enough to keep every prefix
(BIG/seed-N/results.csv); FULL the usual per-seed table (FULL/seedN/peers/mooncake/results.csv at the real cache size).
Per seed and policy of BIG: its mean JCT against the best peer's at the real cache size, and its prefix hit rate (HBM +
CPU) against the trace's ceiling, the share of prompt tokens whose 512-token block prefix appeared earlier in the trace
(what an infinite cache shared by every worker would hit)."""
import csv
import json
import os
import sys

PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
TRACE = os.path.join(os.path.dirname(__file__), '../../../shared/traces/mooncake/conversation_trace.jsonl')
BLOCK = 512


def hit_ceiling(path):
    """Share of prompt tokens whose block prefix (the whole chain of hash ids up to the block) was seen before."""
    seen, hit, total = set(), 0, 0
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            chain, matched = (), 0
            for i, block in enumerate(r['hash_ids']):
                chain += (block,)
                if chain not in seen:
                    break
                matched = i + 1
            chain = ()
            for block in r['hash_ids']:
                chain += (block,)
                seen.add(chain)
            hit += min(matched * BLOCK, r['input_length'])
            total += r['input_length']
    return hit / total


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    big, full = sys.argv[1], sys.argv[2]
    load = float(sys.argv[3]) if len(sys.argv) == 4 else 2.75
    if not os.path.isdir(big):
        sys.exit(f"{big}: no such directory (a bench routing run with --seed, holding seed-N/results.csv)")
    seeds = sorted(int(d.split('-')[1]) for d in os.listdir(big) if d.startswith('seed-') and d[5:].isdigit())
    if not seeds:
        sys.exit(f"{big}: no seed-N directories (run bench routing with --seed, e.g. --seed 1-3)")
    print(f'trace hit ceiling (every earlier prefix cached): {hit_ceiling(TRACE):.3f} of prompt tokens')
    for s in seeds:
        peers = f'{full}/seed{s}/peers/mooncake/results.csv'
        if not os.path.exists(peers):
            sys.exit(f"{peers}: missing (the peers' table at the real cache size, variant_table.sh's layout)")
        with open(peers, newline='') as f:
            real = [r for r in csv.DictReader(f) if r['policy'] in PEERS and float(r['load']) == load]
        if not real:
            sys.exit(f"{peers}: no peer rows at load {load:g}")
        best = min(real, key=lambda r: float(r['jct_mean_s']))
        print(f"seed {s}: best peer mean JCT at the real cache size {float(best['jct_mean_s']):.3f} s ({best['policy']})")
        with open(f'{big}/seed-{s}/results.csv', newline='') as f:
            for r in csv.DictReader(f):
                if float(r['load']) != load:
                    continue
                jct = float(r['jct_mean_s'])
                hits = float(r['hit_hbm']) + float(r['hit_cpu'])
                print(f"  {r['policy']:20s} JCT {jct:.3f} s  best peer / it {float(best['jct_mean_s']) / jct:.3f}"
                      f"  hits {hits:.3f}  TTFT mean {float(r['ttft_mean_s']):.3f} s")


if __name__ == '__main__':
    main()
