#!/usr/bin/env python3
"""same_results.py A_DIR B_DIR WORKLOAD...: for each workload, the columns in which the tierroute-fitted rows of
A_DIR/WORKLOAD/results.csv and B_DIR/WORKLOAD/results.csv differ, load by load (wall_s ignored): the "switches off
routes as main" check of a round's patch. POLICY=all compares every policy's rows (e.g. two peer runs). POLICY_A=x
takes A's rows of policy x instead (e.g. main's tierroute-gated against a round's gated tierroute-fitted); IGNORE=c,d
ignores more columns (e.g. version, whose text a variant and main may word differently)."""
import csv, os, sys

a_dir, b_dir, *ws = sys.argv[1:]
pol = os.environ.get('POLICY', 'tierroute-fitted')
pol_a = os.environ.get('POLICY_A', pol)
ignore = {'wall_s', 'policy'} | set(filter(None, os.environ.get('IGNORE', '').split(',')))

def rows(d, w, p):
    # keyed by (policy, load); a renamed policy (POLICY_A) is keyed under the name it is compared with
    return {(pol if p != pol else r['policy'], r['load']): r for r in csv.DictReader(open(f'{d}/{w}/results.csv'))
            if p == 'all' or r['policy'] == p}

for w in ws:
    a, b = rows(a_dir, w, pol_a), rows(b_dir, w, pol)
    for k in sorted(a.keys() | b.keys()):
        if k not in a or k not in b:
            print(w, *k, 'only in', a_dir if k in a else b_dir)
            continue
        diff = [c for c in a[k] if c not in ignore and a[k][c] != b[k].get(c)]
        print(w, *k, 'differing columns:', diff or 'none')
