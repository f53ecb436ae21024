#!/usr/bin/env python3
"""tail_pair.py A.csv B.csv: two policies' per-request logs of the same workload, load and seed (bench routing
--request-logs). For each: the slowest 1 % by TTFT against all requests (prompt, router hold, queue wait including the
hold, tier load, prefill, TTFT, hits, preemptions), the router hold's quantiles, and what the other policy gave those
same requests; then how many of the two tails are the same requests."""
import csv, statistics as st, sys

COLUMNS = ['prompt_tokens', 'held_us', 'queue_wait_us', 'tier_load_us', 'prefill_us', 'ttft_us', 'hit_hbm_tokens',
           'hit_cpu_tokens', 'computed_tokens', 'preemptions']


def load(path):
    with open(path) as f:
        out = [{k: (v if k == 'id' else float(v)) for k, v in r.items()} for r in csv.DictReader(f)]
    if not out:
        raise SystemExit(f'{path}: no requests')
    return out


def tail(rows):
    ranked = sorted(rows, key=lambda r: -r['ttft_us'])
    return ranked[:max(1, len(ranked) // 100)]


def quantile(sorted_values, q):
    return sorted_values[int(q * (len(sorted_values) - 1))]


def describe(name, rows, other):
    t = tail(rows)
    mean = lambda rs, k: st.mean(r[k] for r in rs)
    print(f'{name}: {len(rows)} requests, p99 TTFT {t[-1]["ttft_us"] / 1e6:.3f} s, mean {mean(rows, "ttft_us") / 1e6:.3f} s')
    for k in COLUMNS:
        print(f'  {k:16s} slowest 1 % {mean(t, k):12.0f}   all {mean(rows, k):12.0f}')
    held = sorted(r['held_us'] / 1e6 for r in rows)
    tail_held = sorted(r['held_us'] / 1e6 for r in t)
    print(f'  held (s): p50 {quantile(held, .5):.3f} p90 {quantile(held, .9):.3f} p99 {quantile(held, .99):.3f} '
          f'max {held[-1]:.3f}; held at all {sum(h > 0 for h in held) / len(held):.2f}; in the slowest 1 %: '
          f'p10 {quantile(tail_held, .1):.2f} p50 {quantile(tail_held, .5):.2f} p90 {quantile(tail_held, .9):.2f}')
    by_id = {r['id']: r for r in other}
    print(f'  the same requests under the other: mean TTFT {st.mean(by_id[r["id"]]["ttft_us"] for r in t) / 1e6:.3f} s '
          f'(here {mean(t, "ttft_us") / 1e6:.3f} s)')
    return {r['id'] for r in t}


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ta = describe(sys.argv[1], a, b)
    tb = describe(sys.argv[2], b, a)
    print(f'in both tails: {len(ta & tb)} of {len(ta)}')


if __name__ == '__main__':
    main()
