#!/usr/bin/env python3
"""same_results.py A_DIR B_DIR WORKLOAD...: for each workload, the columns in which the tierroute-fitted rows of
A_DIR/WORKLOAD/results.csv and B_DIR/WORKLOAD/results.csv differ, load by load (wall_s ignored): the "switches off
routes as main" check of a round's patch. POLICY=all compares every policy's rows (e.g. two peer runs)."""
import csv, os, sys

a_dir, b_dir, *ws = sys.argv[1:]
pol = os.environ.get('POLICY', 'tierroute-fitted')

def rows(d, w):
    return {(r['policy'], r['load']): r for r in csv.DictReader(open(f'{d}/{w}/results.csv'))
            if pol == 'all' or r['policy'] == pol}

for w in ws:
    a, b = rows(a_dir, w), rows(b_dir, w)
    for k in sorted(a.keys() | b.keys()):
        if k not in a or k not in b:
            print(w, *k, 'only in', a_dir if k in a else b_dir)
            continue
        diff = [c for c in a[k] if c != 'wall_s' and a[k][c] != b[k].get(c)]
        print(w, *k, 'differing columns:', diff or 'none')
