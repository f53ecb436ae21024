#!/usr/bin/env python3
"""feasible_cells.py ROOT SEEDS [VARIANT]: is "nowhere more than 3 % behind the best peer" reachable by any policy?
Per seed and cell (workload, load), the best peer per column (TTFT mean, TTFT p99, JCT mean) and, for every policy
run there (the peers, VARIANT's tierroute-fitted (default ks2), `oracle`, `oracle-ttft`), the columns where it is
more than 3 % behind that best peer. A cell where tierroute-fitted is behind is reported with the policies that are
behind nowhere in it; a cell where none is, not even a clairvoyant reference, asks for a point no measured policy
reaches. Reads ROOT/seedN/{peers,VARIANT,oracle,oracle-ttft}/<workload>/results.csv."""
import csv, os, sys
from collections import Counter
PEERS = ['least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu']
COLS = [('ttft_mean_s', 'TTFT'), ('ttft_p99_s', 'p99'), ('jct_mean_s', 'JCT')]
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']
def load(path, keep):
    out = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            if keep(r['policy']) and r['ttft_mean_s']:
                out.setdefault(float(r['load']), {})[r['policy']] = {c: float(r[c]) for c, _ in COLS}
    return out
root, seeds = sys.argv[1], [int(s) for s in sys.argv[2].split(',')]
variant = sys.argv[3] if len(sys.argv) > 3 else 'ks2'
tally = Counter(); reach = Counter(); none = Counter(); columns = Counter()
for s in seeds:
    for w in W:
        cell = load(f'{root}/seed{s}/peers/{w}/results.csv', lambda p: p in PEERS)
        for sub, keep in ((variant, lambda p: p == 'tierroute-fitted'), ('oracle', lambda p: p == 'oracle'),
                          ('oracle-ttft', lambda p: p == 'oracle-ttft')):
            for L, pol in load(f'{root}/seed{s}/{sub}/{w}/results.csv', keep).items():
                cell.setdefault(L, {}).update(pol)
        for L, pol in sorted(cell.items()):
            if 'tierroute-fitted' not in pol:
                continue
            best = {c: min(pol[p][c] for p in PEERS if p in pol) for c, _ in COLS}
            behind = {p: [n for c, n in COLS if best[c] / m[c] < 0.97] for p, m in pol.items()}
            if not behind['tierroute-fitted']:
                continue
            ok = [p for p, b in behind.items() if not b]
            key = (w, L)
            tally[key] += 1
            columns['all'] += len(behind['tierroute-fitted'])
            if ok:
                reach[key] += 1
            else:
                none[key] += 1
                columns['none'] += len(behind['tierroute-fitted'])
            print(f"seed {s} {w} {L:g}: tierroute behind on {'/'.join(behind['tierroute-fitted'])}; "
                  f"behind nowhere: {', '.join(ok) or 'NO POLICY'}; "
                  f"oracle behind on {'/'.join(behind.get('oracle', ['-'])) or 'none'}, "
                  f"oracle-ttft on {'/'.join(behind.get('oracle-ttft', ['-'])) or 'none'}")
print()
print(f"cells where tierroute-fitted is behind, summed over seeds {sys.argv[2]}: {sum(tally.values())}; "
      f"in {sum(none.values())} of them no measured policy (peers and both references) is behind nowhere; "
      f"columns behind: {columns['all']}, {columns['none']} of them in such cells")
for k in sorted(tally):
    print(f"  {k[0]} {k[1]:g}: behind at {tally[k]} seeds; no policy reaches it at {none[k]}")
