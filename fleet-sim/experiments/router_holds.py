#!/usr/bin/env python3
"""router_holds.py ROOT [LIMIT_S]: how long requests waited at the router (late binding's admission queue) in every
per-request log under ROOT (bench routing --request-logs: requests-<policy>-load<L>.csv). Per log: the share held at
all, the 99th percentile and the longest hold, and how many held longer than LIMIT_S (default 30: the selector's
default routing.maxQueueWait, past which production refuses a request; the simulator runs without that limit)."""
import csv, os, sys


def holds(path):
    with open(path) as f:
        return sorted(float(r['held_us']) / 1e6 for r in csv.DictReader(f))


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    root = sys.argv[1]
    try:
        limit = float(sys.argv[2]) if len(sys.argv) == 3 else 30.0
    except ValueError:
        raise SystemExit(f'LIMIT_S must be a number of seconds, got {sys.argv[2]!r}')
    if not limit >= 0:
        raise SystemExit(f'LIMIT_S must be ≥ 0, got {limit}')
    found = 0
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not (name.startswith('requests-') and name.endswith('.csv')):
                continue
            h = holds(os.path.join(dirpath, name))
            if not h:
                continue
            found += 1
            over = sum(x > limit for x in h)
            print(f'{os.path.relpath(os.path.join(dirpath, name), root)}: {len(h)} requests, held {sum(x > 0 for x in h) / len(h):.2f}, '
                  f'p99 {h[int(0.99 * (len(h) - 1))]:.2f} s, longest {h[-1]:.2f} s, over {limit:g} s: {over}')
    if not found:
        raise SystemExit(f'no requests-*.csv under {root}')


if __name__ == '__main__':
    main()
