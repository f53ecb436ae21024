#!/usr/bin/env python3
"""same_results.py A_DIR B_DIR WORKLOAD...: for each workload, the columns in which the tierroute-fitted rows of
A_DIR/WORKLOAD/results.csv and B_DIR/WORKLOAD/results.csv differ, load by load (wall_s ignored): the "switches off
routes as main" check of a round's patch."""
import csv, sys
a_dir, b_dir, *ws = sys.argv[1:]
for w in ws:
    a = [r for r in csv.DictReader(open(f'{a_dir}/{w}/results.csv')) if r['policy'] == 'tierroute-fitted']
    b = [r for r in csv.DictReader(open(f'{b_dir}/{w}/results.csv')) if r['policy'] == 'tierroute-fitted']
    for x, y in zip(a, b):
        print(w, x['load'], 'differing columns:', [k for k in x if k != 'wall_s' and x[k] != y.get(k)] or 'none')
    if len(a) != len(b):
        print(w, 'row counts differ', len(a), len(b))
