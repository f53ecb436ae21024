#!/usr/bin/env python3
"""wait_calibration.py CANDIDATES.tsv REQUESTS.csv: how the admission wait W the selector priced compares with the
queue wait each request realised, from one run's candidate log (`-Dtr.candLog=FILE` of round-gate.patch: a line per
routed request, every candidate's terms) and its per-request log (`bench routing --request-logs`). Per band of the
chosen worker's raw W (before k and the fade): requests, mean W, mean realised queue wait, how many waited over
0.5 s and how many loaded from the CPU tier; then how often the overflow price (with its harm) outweighed the wait in
C_kv = max(·, ·), where the wait did not count at all (ROUNDS.md, "Gate round")."""
import csv
import sys

FIELDS = ("total prefill harm queue kv kvWait W ovHarm tier hit cpu kvUsed overflow inflight decTok own decode "
          "hol").split()


def decisions(path):
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip('\n').split('\t')
            if len(parts) < 4:
                sys.exit(f"{path}: not a candidate log line: {line[:80]!r}")
            cands = []
            for c in parts[3:]:
                v = c.split(',')
                d = {'eligible': v[0] == '1'}
                d.update({k: float(x) for k, x in zip(FIELDS, v[1:])})
                cands.append(d)
            # the warm-up's routes come first; the measured run's decision for an id is its last line
            out[parts[0]] = (int(parts[1]), float(parts[2]), cands)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dec = decisions(sys.argv[1])
    with open(sys.argv[2], newline='') as f:
        rows = list(csv.DictReader(f))
    missing = [r['id'] for r in rows if r['id'] not in dec]
    if missing:
        sys.exit(f"{len(missing)} requests have no decision in the candidate log (e.g. {missing[0]}): same run?")
    pts = []
    for r in rows:
        chosen, _, cands = dec[r['id']]
        pts.append((cands[chosen], int(r['queue_wait_us']) / 1e6))
    bands = [0, 1e-12, 0.1, 0.3, 0.6, 1.0, 2.0, float('inf')]
    print("raw W band (s)   requests  mean W  mean wait  waited>0.5s  CPU-tier loads")
    for lo, hi in zip(bands, bands[1:]):
        b = [(c, q) for c, q in pts if lo <= c['W'] / 1e6 < hi]
        if not b:
            continue
        n = len(b)
        label = "0 (no wait)" if lo == 0 else f"[{lo:.1f}, {hi:.1f})"
        print(label.ljust(17) + f"{n:8d}  {sum(c['W'] for c, _ in b) / n / 1e6:6.3f}  "
              f"{sum(q for _, q in b) / n:9.3f}  {sum(1 for _, q in b if q > 0.5):11d}  "
              f"{sum(1 for c, _ in b if c['cpu'] > 0):14d}")
    # the log rounds each term to whole µs: a wait priced under 0.5 µs counts as none
    priced = [c for c, _ in pts if c['kvWait'] > 0]
    outweighed = sum(1 for c in priced if c['kv'] > c['kvWait'])
    print(f"chosen workers with a wait priced: {len(priced)}; the overflow price with its harm outweighed it in "
          f"{outweighed}")
    if priced:
        r = sorted(c['kv'] / c['kvWait'] for c in priced)
        print(f"C_kv over the wait: min {r[0]:.1f}x, median {r[len(r) // 2]:.1f}x, max {r[-1]:.1f}x")


if __name__ == '__main__':
    main()
