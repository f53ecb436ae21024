#!/usr/bin/env python3
"""idle_tail.py REQUESTS.csv CANDLOG.csv: the slowest 1 % by TTFT of one run (bench routing --request-logs) joined with
the same run's candidate log (-Dtr.candLog, round-idle-harm.patch): how many were routed to a worker with nothing in
flight, and, for the tail, its idle part and every idle-routed request, the mean TTFT, queue wait, prefill, tier load
(ms) and prompt, computed and HBM-hit tokens."""
import csv, statistics as st, sys

req = list(csv.DictReader(open(sys.argv[1])))
chosen = {}
for r in csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith('#')):
    if r['worker'] == r['chosen']:
        chosen[r['req']] = r
req.sort(key=lambda r: -int(r['ttft_us']))
tail = req[:len(req) // 100]
idle = lambda rs: [r for r in rs if int(chosen[r['id']]['in_flight']) == 0]
m = lambda rs, k: st.mean(int(r[k]) for r in rs) / (1e3 if k.endswith('_us') else 1) if rs else float('nan')
print(f"{sys.argv[1]}: {len(req)} requests, {len(idle(req))} routed to an idle worker; slowest 1 %: {len(tail)}, "
      f"{len(idle(tail))} of them to an idle worker")
for name, rs in (('tail', tail), ('tail, idle', idle(tail)), ('all idle', idle(req))):
    print(f"  {name:10s} TTFT {m(rs, 'ttft_us'):.0f} ms, queue {m(rs, 'queue_wait_us'):.0f}, prefill {m(rs, 'prefill_us'):.0f}, "
          f"tier {m(rs, 'tier_load_us'):.0f}; prompt {m(rs, 'prompt_tokens'):.0f}, computed {m(rs, 'computed_tokens'):.0f}, "
          f"HBM hit {m(rs, 'hit_hbm_tokens'):.0f} tokens")
