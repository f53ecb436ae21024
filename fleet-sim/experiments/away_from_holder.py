#!/usr/bin/env python3
"""away_from_holder.py CANDLOG.csv FROM_S TO_S: the decisions of a run (candidate log, -Dtr.candLog) made between FROM_S
and TO_S seconds that chose a worker holding more than 4,096 fewer prompt tokens than the deepest holder, and the mean
difference chosen − deepest holder of each cost term (ms), with both workers' waiting and in-flight counts: which term
sent requests away from their prefix ("Head-of-line round")."""
import collections, csv, sys

cand, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
terms = ['prefill', 'harm', 'queue', 'kv', 'hol', 'tier', 'wf']
by = collections.defaultdict(list)
with open(cand) as f:
    print(next(f).strip()[:240])
    for r in csv.DictReader(f):
        if t0 <= int(r['t_us']) / 1e6 < t1:
            by[r['req']].append(r)
away, sums = 0, collections.Counter()
for rs in by.values():
    ch = next(r for r in rs if r['chosen'] == r['worker'])
    best = max(rs, key=lambda r: int(r['hit']))
    if int(best['hit']) - int(ch['hit']) <= 4096:
        continue
    away += 1
    for k in terms:
        sums[k] += float(ch[k]) - float(best[k])
    for k, col in [('wait_chosen', ch['waiting']), ('wait_holder', best['waiting']),
                   ('inflight_chosen', ch['in_flight']), ('inflight_holder', best['in_flight'])]:
        sums[k] += int(col)
print(f'decisions {len(by)}, away from the deepest holder by > 4,096 tokens: {away}')
if away:
    print('  mean chosen − holder, ms:', {k: round(sums[k] / away / 1000, 1) for k in terms})
    print('  mean waiting chosen / holder: %.1f / %.1f; in flight %.1f / %.1f' % tuple(
        sums[k] / away for k in ['wait_chosen', 'wait_holder', 'inflight_chosen', 'inflight_holder']))
