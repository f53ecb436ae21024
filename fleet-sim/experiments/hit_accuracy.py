#!/usr/bin/env python3
"""hit_accuracy.py CANDLOG.csv REQUESTS.csv [CANDLOG2.csv REQUESTS2.csv ...]: does the chosen worker's predicted hit come
true? Per run (a candidate log from -Dtr.candLog and the same run's --request-logs file): the mean predicted hit tokens
of the chosen candidate against the realised ones (HBM + CPU + NVMe hits at admission), the requests over-predicted by
more than 2,048 tokens, their mean TTFT and how many of them are in the TTFT tail (>= p99). "Head-of-line round"."""
import csv, statistics as st, sys

def chosen(cand):
    out = {}
    with open(cand) as f:
        next(f)  # the header comment: the fitted parameters
        for r in csv.DictReader(f):
            if r['chosen'] == r['worker']:
                out[r['req']] = r
    return out

args = sys.argv[1:]
for cand, req in zip(args[0::2], args[1::2]):
    ch = chosen(cand)
    rows = list(csv.DictReader(open(req)))
    ttfts = sorted(int(r['ttft_us']) for r in rows)
    p99 = ttfts[int(len(ttfts) * 0.99)]
    n = pred = real = 0
    over = []
    for r in rows:
        c = ch.get(r['id'])
        if c is None:
            continue
        n += 1
        p = int(c['hit'])
        q = int(r['hit_hbm_tokens']) + int(r['hit_cpu_tokens']) + int(r['hit_nvme_tokens'])
        pred += p
        real += q
        if p - q > 2048:
            over.append(int(r['ttft_us']))
    print(f"{req}: {n} requests, hit per request predicted {pred // max(n, 1)} / realised {real // max(n, 1)} tokens; "
          f"over-predicted by > 2,048: {len(over)} (mean TTFT {st.mean(over) / 1e6 if over else 0:.2f} s, "
          f"{sum(1 for t in over if t >= p99)} in the tail)")
