#!/usr/bin/env python3
"""collapse_timeline.py CANDLOG.csv REQUESTS.csv [SECONDS]: a run by arrival time, in bins of SECONDS (default 20): the
requests, the chosen worker's predicted hit against the realised one (tokens per request), the requests over-predicted by
more than 2,048 tokens, mean TTFT and mean queue wait. A collapse shows as a queue wait that grows bin after bin;
"Head-of-line round" reads where it starts."""
import csv, statistics as st, sys

cand, req = sys.argv[1], sys.argv[2]
width = int(sys.argv[3]) if len(sys.argv) > 3 else 20
ch = {}
with open(cand) as f:
    next(f)
    for r in csv.DictReader(f):
        if r['chosen'] == r['worker']:
            ch[r['req']] = r
bins = {}
for r in csv.DictReader(open(req)):
    c = ch.get(r['id'])
    if c is None:
        continue
    b = bins.setdefault(int(r['arrival_us']) // (width * 1_000_000), {'n': 0, 'pred': 0, 'real': 0, 'over': 0, 'ttft': [], 'queue': 0.0})
    p = int(c['hit'])
    q = int(r['hit_hbm_tokens']) + int(r['hit_cpu_tokens']) + int(r['hit_nvme_tokens'])
    b['n'] += 1; b['pred'] += p; b['real'] += q; b['over'] += p - q > 2048
    b['ttft'].append(int(r['ttft_us']) / 1e6); b['queue'] += int(r['queue_wait_us']) / 1e6
for k in sorted(bins):
    b = bins[k]
    print(f"{k * width:5d} s  n={b['n']:4d}  hit predicted {b['pred'] // b['n']:6d} realised {b['real'] // b['n']:6d}  "
          f"over-predicted {b['over']:3d}  TTFT {st.mean(b['ttft']):7.2f} s  queue {b['queue'] / b['n']:7.2f} s")
