#!/usr/bin/env python3
"""request_tails.py ROOT VARIANT...: the overdue round's table (ROUNDS.md, "Overdue round"). Reads tierroute-fitted's
per-request logs at ROOT/V/seedN/mooncake/requests-tierroute-fitted-load<L>.csv (bench routing --request-logs) and
prints per load and variant, as geometric means over the seeds found: mean, p99 and p99.9 TTFT, the longest TTFT (and
the longest of all seeds), the requests whose TTFT passed 30 s (summed over the seeds) and the mean JCT."""
import csv, glob, math, os, re, statistics as st, sys

LIMIT_S = 30.0


def stats(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f'{path}: no requests (a run still writing it?)')
    ttft = sorted(float(r['ttft_us']) / 1e6 for r in rows)
    n = len(ttft)
    return {'mean': st.mean(ttft), 'p99': ttft[int(.99 * (n - 1))], 'p999': ttft[int(.999 * (n - 1))],
            'max': ttft[-1], 'over': sum(t > LIMIT_S for t in ttft),
            'jct': st.mean(float(r['jct_us']) / 1e6 for r in rows)}


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    root = sys.argv[1]
    by_load = {}
    for variant in sys.argv[2:]:
        for path in glob.glob(f'{root}/{variant}/seed*/mooncake/requests-tierroute-fitted-load*.csv'):
            load = re.search(r'load([0-9.]+)\.csv$', path).group(1)
            by_load.setdefault(float(load), {}).setdefault(variant, []).append(stats(path))
    if not by_load:
        raise SystemExit(f'no request logs under {root} for {sys.argv[2:]}')
    for load in sorted(by_load):
        for variant in sys.argv[2:]:
            runs = by_load[load].get(variant)
            if not runs:
                continue
            g = lambda k: geo([r[k] for r in runs])
            print(f"load {load:g} {variant}: {len(runs)} seeds; TTFT mean {g('mean'):.3f} p99 {g('p99'):.2f} "
                  f"p99.9 {g('p999'):.1f} longest {g('max'):.1f} (at most {max(r['max'] for r in runs):.0f}) s; "
                  f"past {LIMIT_S:g} s {sum(r['over'] for r in runs)}; JCT {g('jct'):.3f} s")


if __name__ == '__main__':
    main()
