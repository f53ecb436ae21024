#!/usr/bin/env python3
"""wait_buckets.py CANDIDATE_LOG REQUEST_LOG [HBM_TOKENS]: the admission wait W the cost model predicted for each
request's chosen worker (CostModel.admissionWait, with the fitted tau0 and alpha the log's header names) against the
queue wait the request realised, grouped by W (ROUNDS.md, "Shared-KV round"). CANDIDATE_LOG is a -Dtr.candLog file of
a one-load tierroute-fitted run, REQUEST_LOG that run's --request-logs CSV; HBM_TOKENS the worker's HBM (default
262,144, the table's)."""
import csv, re, sys

BOUNDS = [(0, 0, 'W = 0'), (0, 0.5e6, '0 < W <= 0.5 s'), (0.5e6, 1e6, '0.5-1 s'), (1e6, 1.5e6, '1-1.5 s'),
          (1.5e6, float('inf'), '> 1.5 s')]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    cand, reqf = sys.argv[1], sys.argv[2]
    cap = int(sys.argv[3]) if len(sys.argv) > 3 else 262144
    header = open(cand).readline()
    m = re.search(r'admission wait τ₀=(-?\d+) µs α=([\d.e-]+) k=([\d.]+)', header)
    if not m:
        raise SystemExit(f'{cand}: no fitted admission wait in its header line')
    tau0, alpha, k = float(m.group(1)), float(m.group(2)), float(m.group(3))
    chosen = {}
    for r in csv.DictReader(l for l in open(cand) if not l.startswith('#')):
        if r['worker'] == r['chosen']:
            chosen[r['req']] = r
    waits = {r['id']: int(r['queue_wait_us']) for r in csv.DictReader(open(reqf))}
    groups = {b: [] for b in BOUNDS}
    for rid, c in chosen.items():
        if rid not in waits:
            continue
        kv, isl, dhat = int(c['kv_used']), int(c['isl']), int(c['dhat'])
        hbm_hit = int(c['hit']) - int(c['hit_cpu'])
        missing = max(0, max(0, kv + isl + dhat - cap) - hbm_hit)
        in_flight, decode = int(c['in_flight']), int(c['dec_tokens'])
        w = 0.0 if missing <= 0 or in_flight <= 0 or kv <= 0 else \
            (tau0 + alpha * kv) * decode / in_flight * min(1.0, missing / kv)
        bucket = BOUNDS[0] if w == 0 else next(b for b in BOUNDS[1:] if b[0] < w <= b[1])
        groups[bucket].append((w, waits[rid]))
    print(f'fitted tau0 {tau0:.0f} us, alpha {alpha}, k {k}')
    print('| W predicted | requests | mean W | mean realised queue wait | p90 |')
    for b in BOUNDS:
        g = groups[b]
        if not g:
            continue
        qs = sorted(q for _, q in g)
        print(f'| {b[2]} | {len(g):,} | {sum(w for w, _ in g) / len(g) / 1e6:.2f} s | {sum(qs) / len(qs) / 1e6:.2f} s '
              f'| {qs[int(0.9 * (len(qs) - 1))] / 1e6:.2f} s |')


if __name__ == '__main__':
    main()
