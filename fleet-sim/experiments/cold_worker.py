#!/usr/bin/env python3
"""cold_worker.py CANDLOG.csv: why a worker is never chosen. CANDLOG is the candidate log of the measured run
(`-Dtr.candLog=PREFIX` with round-idle-harm.patch: one line per candidate per request, every cost term in µs).
The "cold" worker is the one chosen last for the first time; over the routes before that, it prints the cost gap
cold - chosen term by term (medians), the chosen worker's load terms (C_decode + C_queue + C_hol) against the cold
worker's extra C_prefill alone and with its extra C_harm, and how many routes the cold worker would have won
without its C_harm."""
import csv, statistics as st, sys

f = sys.argv[1]
lines = [l for l in open(f) if not l.startswith('#')]
by = {}
for r in csv.DictReader(lines):
    by.setdefault(r['req'], []).append(r)
reqs = list(by.values())
workers = sorted({int(c['worker']) for c in reqs[0]})
first = {}
for i, cs in enumerate(reqs):
    first.setdefault(int(cs[0]['chosen']), i)
cold = max(workers, key=lambda w: first.get(w, 10 ** 9))
upto = first.get(cold, len(reqs))
parts = {k: [] for k in ('total', 'prefill', 'harm', 'queue', 'decode', 'hol')}
load, extra, extra_h, fleet, dhat = [], [], [], [], []
wins_no_harm = over_prefill = over_both = 0
for cs in reqs[:upto]:
    ch = int(cs[0]['chosen'])
    c = next(x for x in cs if int(x['worker']) == ch)
    k = next(x for x in cs if int(x['worker']) == cold)
    for p in parts:
        parts[p].append(float(k[p]) - float(c[p]))
    l = sum(float(c[t]) for t in ('decode', 'queue', 'hol'))
    e = float(k['prefill']) - float(c['prefill'])
    eh = e + float(k['harm']) - float(c['harm'])
    load.append(l); extra.append(e); extra_h.append(eh)
    over_prefill += l > e; over_both += l > eh
    fleet.append(float(c['fleet_inflight'])); dhat.append(int(c['dhat']))
    if float(k['total']) - float(k['harm']) < min(float(x['total']) for x in cs if int(x['worker']) != cold):
        wins_no_harm += 1
q = lambda v, p: sorted(v)[int(p * (len(v) - 1))] / 1e3
when = f"route {upto} (t = {int(reqs[upto][0]['t_us']) / 1e6:.0f} s)" if upto < len(reqs) else "never"
print(f"{f}: cold worker {cold}, first chosen at {when}; over the {upto} routes before it:")
print(f"  Ā median {st.median(fleet):.2f}, d̂ median {st.median(dhat)}")
for p, v in parts.items():
    print(f"  {p:8s} cold - chosen: median {st.median(v) / 1e3:7.1f} ms")
print(f"  chosen's load terms p50 / p90 / max {q(load, .5):.1f} / {q(load, .9):.1f} / {q(load, 1):.1f} ms; cold's extra "
      f"C_prefill p50 {q(extra, .5):.1f} ms, with its extra C_harm p50 {q(extra_h, .5):.1f} ms")
print(f"  load terms > extra C_prefill in {over_prefill} routes, > extra C_prefill + C_harm in {over_both}; "
      f"without its C_harm the cold worker would have been the cheapest in {wins_no_harm}")
