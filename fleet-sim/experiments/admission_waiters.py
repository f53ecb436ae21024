#!/usr/bin/env python3
"""admission_waiters.py A.csv B.csv [SECONDS]: where policy A's mean TTFT loses to policy B's, from two per-request logs
of the same run (`bench routing --request-logs`, requests-<policy>-load<L>.csv; same trace, seed and load).

Per log: mean TTFT and its phases (queue wait, tier load, prefill), and how the queue wait is spread (the share of
requests waiting over 1 ms, 0.1 s, SECONDS; the share of all queue wait carried by those over SECONDS). Then A's
requests that waited over SECONDS (default 0.5): how many, their prompt and hits, what B did with the same requests
(same worker or not, TTFT, hits) and the share of the whole mean-TTFT gap A − B they carry (Overflow-harm round,
ROUNDS.md)."""
import csv
import sys


def load(path):
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no requests (a header only?)")
    by_id = {r['id']: r for r in rows}
    if len(by_id) != len(rows):
        sys.exit(f"{path}: {len(rows) - len(by_id)} duplicate request ids: not one run's log")
    return by_id


def us(r, k):
    return float(r[k]) / 1e6


def hits(r):
    return int(r['hit_hbm_tokens']) + int(r['hit_cpu_tokens'])


def summary(name, rows, slow):
    n = len(rows)
    mean = lambda k: sum(us(r, k) for r in rows) / n
    q = sorted(us(r, 'queue_wait_us') for r in rows)
    share = lambda t: sum(1 for x in q if x > t) / n
    carried = sum(x for x in q if x > slow) / max(sum(q), 1e-12)
    print(f"{name}: {n} requests, TTFT {mean('ttft_us'):.3f} s = queue {mean('queue_wait_us'):.3f} + tier "
          f"{mean('tier_load_us'):.4f} + prefill {mean('prefill_us'):.3f}; queue wait > 1 ms {share(0.001):.3f}, "
          f"> 0.1 s {share(0.1):.3f}, > {slow} s {share(slow):.4f} (carrying {carried:.2f} of all queue wait), "
          f"p99 {q[int(n * 0.99)]:.3f} s, max {q[-1]:.2f} s")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    slow = float(sys.argv[3]) if len(sys.argv) == 4 else 0.5
    if a.keys() != b.keys():
        sys.exit("the two logs hold different requests: same trace, seed and load?")
    summary('A', list(a.values()), slow)
    summary('B', list(b.values()), slow)
    waiters = [i for i, r in a.items() if us(r, 'queue_wait_us') > slow]
    if not waiters:
        print(f"no request of A waited over {slow} s")
        return
    n = len(waiters)
    avg = lambda rows, f: sum(f(r) for r in rows) / n
    ra, rb = [a[i] for i in waiters], [b[i] for i in waiters]
    gap = sum(us(r, 'ttft_us') for r in a.values()) - sum(us(r, 'ttft_us') for r in b.values())
    mine = sum(us(r, 'ttft_us') for r in ra) - sum(us(r, 'ttft_us') for r in rb)
    print(f"A's {n} requests that waited over {slow} s: prompt {avg(ra, lambda r: int(r['prompt_tokens'])):.0f} tokens "
          f"(all: {sum(int(r['prompt_tokens']) for r in a.values()) / len(a):.0f}), hits in A HBM "
          f"{avg(ra, lambda r: int(r['hit_hbm_tokens'])):.0f} + CPU {avg(ra, lambda r: int(r['hit_cpu_tokens'])):.0f}; "
          f"TTFT in A {avg(ra, lambda r: us(r, 'ttft_us')):.3f} s, in B {avg(rb, lambda r: us(r, 'ttft_us')):.3f} s "
          f"(queue {avg(rb, lambda r: us(r, 'queue_wait_us')):.3f} s, hits {avg(rb, hits):.0f}); "
          f"B sent {sum(1 for x, y in zip(ra, rb) if x['worker'] != y['worker'])} of them elsewhere")
    if gap > 0:
        print(f"they carry {mine / gap:.2f} of the whole TTFT gap A − B ({gap / len(a):.3f} s per request)")
    else:
        print(f"A's mean TTFT is not above B's (gap {gap / len(a):.3f} s per request)")


if __name__ == '__main__':
    main()
