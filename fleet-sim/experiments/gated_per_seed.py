#!/usr/bin/env python3
"""gated_per_seed.py ROOT [ROOT...]: the harm-price round's gated variant seed by seed against main, with each run's
fit. Reads ROOT/seedN/{base,hq-gated,peers}/CELL/results.csv (variant_table.sh / overload_table.sh layouts, hq-gated
run with round-harm-price.patch, whose note names the completions' prefill slope as "profile"). Prints every run whose
fit has α_p below half the slope (the fit's α_p, α_p2, slope, average price, R², α_ho, α_d, α_t, k; best peer / ours on
mean TTFT, p99 TTFT and mean JCT, main then gated), then, for cpu-overflow (CELL co) at 2.5 and 3, how many of the runs
the gate held got worse or better by more than 3 % per column, with the geometric mean and the median of each router."""
import csv, glob, os, re, statistics as st, sys

PEERS = {'least-loaded', 'sglang-cache-aware', 'dynamo', 'dynamo-2025', 'llmd-precise', 'llmd-approx', 'llmd-tiered-cpu'}
COLS = ['ttft_mean_s', 'ttft_p99_s', 'jct_mean_s']
NUM = r'([-+0-9.e]+)'
FIELDS = [('profile', r'profile ' + NUM), ('price', r'price ' + NUM), ('r2', r'R²=' + NUM + r'\)'),
          ('ap', r'α_p=' + NUM), ('ap2', r'α_p2=' + NUM), ('ad', r'α_d=' + NUM), ('aho', r'α_ho=' + NUM),
          ('at', r'α_t=' + NUM), ('k', r' k=' + NUM)]


def fit_of(note):
    out = {}
    for key, pattern in FIELDS:
        m = re.search(pattern, note)
        out[key] = float(m.group(1).rstrip('.')) if m else float('nan')
    return out


def runs(root):
    for f in sorted(glob.glob(f'{root}/seed*/hq-gated/*/results.csv')):
        seed, cell = f.split('/')[-4], f.split('/')[-2]
        base, peers = f.replace('/hq-gated/', '/base/'), f.replace('/hq-gated/', '/peers/')
        if not (os.path.exists(base) and os.path.exists(peers)):
            continue
        best = {}
        for r in csv.DictReader(open(peers)):
            if r['policy'] in PEERS:
                best.setdefault(r['load'], []).append(r)
        main = {r['load']: r for r in csv.DictReader(open(base)) if r['policy'] == 'tierroute-fitted'}
        for r in csv.DictReader(open(f)):
            load = r['load']
            if r['policy'] != 'tierroute-fitted' or load not in main or load not in best:
                continue
            b = {c: min(float(p[c]) for p in best[load]) for c in COLS}
            yield (root.rstrip('/').split('/')[-1], cell, seed, load, fit_of(r['version']),
                   {c: b[c] / float(main[load][c]) for c in COLS}, {c: b[c] / float(r[c]) for c in COLS})


rows = [row for root in sys.argv[1:] for row in runs(root)]
print('set  cell            seed   load  α_p     α_p2     slope  price  R²    α_ho     α_d    α_t   k     '
      '| main TTFT p99 JCT | gated TTFT p99 JCT')
for s, cell, seed, load, fe, main, gated in sorted(rows, key=lambda x: (x[1], x[2], x[3])):
    if fe['ap'] < 0.5 * fe['profile']:
        print(f"{s:4s} {cell:15s} {seed:6s} {load:5s} {fe['ap']:<7.3g} {fe['ap2']:<8.3g} {fe['profile']:<6.3g} "
              f"{fe['price']:<6.3g} {fe['r2']:<5.2f} {fe['aho']:<8.3g} {fe['ad']:<6.3g} {fe['at']:<5.3g} {fe['k']:<5.3g} | "
              + ' '.join(f'{main[c]:.2f}' for c in COLS) + ' | ' + ' '.join(f'{gated[c]:.2f}' for c in COLS))
print()
for load in ['2.5', '3.0']:
    for c in COLS:
        sel = [(fe, m, g) for s, cell, seed, l, fe, m, g in rows if cell == 'co' and l == load]
        if not sel:
            continue
        held = [(m, g) for fe, m, g in sel if fe['ap'] < 0.5 * fe['profile'] and fe['r2'] < 0.7]
        worse = sum(g[c] < 0.97 * m[c] for m, g in held)
        better = sum(g[c] > 1.03 * m[c] for m, g in held)
        mains, gateds = [m[c] for _, m, _ in sel], [g[c] for _, _, g in sel]
        print(f'cpu-overflow {load} {c:12s}: held {len(held)}/{len(sel)}, worse {worse}, better {better}; '
              f'geo main {st.geometric_mean(mains):.3f} gated {st.geometric_mean(gateds):.3f}; '
              f'median main {st.median(mains):.3f} gated {st.median(gateds):.3f}')
