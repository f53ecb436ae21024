#!/usr/bin/env python3
"""oracle_request_logs.py REQUESTS_CSV...: the "Oracle round" diagnosis from `--request-logs` files: HBM / CPU hit and
computed share of all prompt tokens, preemptions and preempted requests, workers per agent workflow (ids up to "-s"),
and the mean queue wait per tenth of the arrivals."""
import collections, csv, sys
for name in sys.argv[1:]:
    rows = sorted(csv.DictReader(open(name)), key=lambda r: int(r['arrival_us']))
    P = sum(int(r['prompt_tokens']) for r in rows)
    share = lambda c: sum(int(r[c]) for r in rows) / P
    wf = collections.defaultdict(set)
    for r in rows:
        wf[r['id'].rsplit('-s', 1)[0]].add(r['worker'])
    n = len(rows)
    tenths = [sum(int(r['queue_wait_us']) for r in rows[q * n // 10:(q + 1) * n // 10]) / (n // 10) / 1e6 for q in range(10)]
    print(f'{name}: {n} requests; hit HBM {share("hit_hbm_tokens"):.3f} CPU {share("hit_cpu_tokens"):.3f}; computed '
          f'{share("computed_tokens"):.3f} of prompt tokens; {sum(int(r["preemptions"]) for r in rows)} preemptions of '
          f'{sum(1 for r in rows if int(r["preemptions"]) > 0)} requests; {sum(len(v) for v in wf.values()) / len(wf):.2f} '
          f'workers per workflow; mean queue wait {sum(int(r["queue_wait_us"]) for r in rows) / n / 1e6:.2f} s, per tenth: '
          + ' '.join(f'{x:.2f}' for x in tenths))
