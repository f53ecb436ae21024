#!/usr/bin/env python3
"""within_oracle.py ROOT SEEDS [VARIANT]: "within 10 % of the oracle's mean TTFT", per seed and cell, against the
better of the two clairvoyant references. Reads ROOT/seedN/{VARIANT,oracle,oracle-ttft}/<workload>/results.csv (the
layout feasible_cells.py reads; VARIANT's POLICY rows, default base; the references' rows are picked by
policy name, so oracle-ttft may be a link to the oracle directory when one run holds both). Prints the cells within
10 % per seed and each cell whose geometric mean over the seeds is above 10 % or that is above at three seeds or more
(ROUNDS.md, "Gate round"). REFERENCE=oracle or REFERENCE=oracle-ttft compares against that reference alone (ROUNDS.md,
"Frontier round": the issue's oracle is `oracle`, the clairvoyant cost model). POLICY=name reads another policy's rows
(default tierroute-fitted)."""
import csv
import math
import os
import sys
from collections import defaultdict

POLICY = os.environ.get('POLICY', 'tierroute-fitted')
W = ['mooncake', 'agentic-pcie', 'chat', 'cpu-overflow', 'agentic', 'llmd-blog']


def mean_ttft(path, keep):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, newline='') as f:
        for r in csv.DictReader(f):
            if keep(r['policy']) and r['ttft_mean_s']:
                out.setdefault(float(r['load']), []).append(float(r['ttft_mean_s']))
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    root, seeds = sys.argv[1], [int(s) for s in sys.argv[2].split(',')]
    variant = sys.argv[3] if len(sys.argv) == 4 else 'base'
    only = os.environ.get('REFERENCE') or None
    if only not in (None, 'oracle', 'oracle-ttft'):
        sys.exit(f"REFERENCE={only}: oracle or oracle-ttft")
    keep = lambda name: only is None or name == only
    label = 'the better reference' if only is None else only
    ratios = defaultdict(list)
    for s in seeds:
        within = cells = 0
        for w in W:
            refs = mean_ttft(f'{root}/seed{s}/oracle/{w}/results.csv', lambda p: p == 'oracle' and keep(p))
            for L, v in mean_ttft(f'{root}/seed{s}/oracle-ttft/{w}/results.csv',
                                  lambda p: p == 'oracle-ttft' and keep(p)).items():
                refs.setdefault(L, []).extend(v)
            for L, v in mean_ttft(f'{root}/seed{s}/{variant}/{w}/results.csv', lambda p: p == POLICY).items():
                if L not in refs:
                    where = {None: 'oracle and oracle-ttft', 'oracle': 'oracle', 'oracle-ttft': 'oracle-ttft'}[only]
                    sys.exit(f"seed {s} {w} {L}: no reference run (ROOT/seed{s}/{where})")
                x = v[0] / min(refs[L])
                ratios[(w, L)].append(x)
                cells += 1
                within += x <= 1.10
        if cells == 0:
            sys.exit(f"seed {s}: no {POLICY} rows under {root}/seed{s}/{variant}")
        print(f"seed {s}: {within} of {cells} cells within 10 % of {label}")
    for (w, L), xs in ratios.items():
        geo = math.exp(sum(map(math.log, xs)) / len(xs))
        above = sum(1 for x in xs if x > 1.10)
        if geo > 1.10 or above >= 3:
            print(f"{w} {L:g}: {100 * (geo - 1):+.1f} % on the geometric mean of {label}, above 10 % at {above} of "
                  f"{len(xs)} seeds")


if __name__ == '__main__':
    main()
