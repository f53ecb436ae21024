#!/usr/bin/env python3
"""hit_trades.py CANDLOG.csv [SECONDS]: the requests whose chosen worker holds more than 2,048 tokens fewer of their
prefix than the best-holding candidate (a traded hit), among those arriving in the run's first SECONDS (default: all),
and, averaged over them, each cost term of the best holder minus the chosen worker's, in ms (positive: the term that
made the best holder dearer). Also the mean fleet in-flight count and the chosen worker's queue. CANDLOG is a
-Dtr.candLog file (CandidateLog); "Head-of-line-cap round" reads it."""
import collections, csv, sys

TERMS = ['prefill', 'harm', 'queue', 'decode', 'kv', 'hol', 'tier']
path = sys.argv[1]
window = float(sys.argv[2]) if len(sys.argv) > 2 else float('inf')
candidates = collections.defaultdict(list)
with open(path) as f:
    next(f)  # the '#' line naming the fitted parameters
    for r in csv.DictReader(f):
        candidates[r['req']].append(r)
start = min(int(cs[0]['t_us']) for cs in candidates.values())
n = traded = 0
delta = collections.Counter()
in_flight, waiting = [], []
for cs in candidates.values():
    if (int(cs[0]['t_us']) - start) / 1e6 > window:
        continue
    n += 1
    chosen = next(c for c in cs if c['worker'] == c['chosen'])
    best = max(cs, key=lambda c: int(c['hit']))
    in_flight.append(float(chosen['fleet_inflight']))
    waiting.append(int(chosen['waiting']))
    if int(best['hit']) - int(chosen['hit']) > 2048:
        traded += 1
        for t in TERMS:
            delta[t] += (float(best[t]) - float(chosen[t])) / 1e3
print(f'{path}: {n} requests, {traded} traded a hit of more than 2,048 tokens; mean fleet in-flight '
      f'{sum(in_flight) / n:.1f}, chosen worker\'s queue {sum(waiting) / n:.2f}')
print('  best holder minus chosen, mean ms over the traded: '
      + ' '.join(f'{t} {delta[t] / max(traded, 1):+.1f}' for t in TERMS))
