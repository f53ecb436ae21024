# Per-request log (bench routing --request-logs) -> mean TTFT / decode / JCT, inter-token latency (decode time per
# generated token after the first) overall and per worker, with each worker's request count.
# usage: python3 itl.py requests-<policy>-load<L>.csv [...]
import csv, sys
for f in sys.argv[1:]:
    rows = list(csv.DictReader(open(f)))
    n = len(rows)
    W = {}
    dec = steps = 0
    for r in rows:
        d, s = int(r['decode_us']), max(1, int(r['output_tokens']) - 1)
        dec += d; steps += s
        w = W.setdefault(int(r['worker']), [0, 0, 0]); w[0] += 1; w[1] += d; w[2] += s
    mean = lambda k: sum(int(r[k]) for r in rows) / n / 1e6
    print(f"{f}: n={n} ttft={mean('ttft_us'):.3f} decode={mean('decode_us'):.3f} jct={mean('jct_us'):.3f} "
          f"itl={dec / steps / 1e3:.2f} ms")
    print("   per worker (requests:itl ms):", " ".join(f"{v[0]}:{v[1] / v[2] / 1e3:.1f}" for k, v in sorted(W.items())))
