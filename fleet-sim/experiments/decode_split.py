#!/usr/bin/env python3
"""decode_split.py requests-<policy>-load<L>.csv [...]: where a run's decode time goes (per-request logs of
bench routing --request-logs). DESIGN.md §6's step time: a step carrying prefill chunks of T tokens costs every
decoder in it prefill_ms(T) = 4.209989e-7·T² + 1.518344e-2·T + 16.50142 on top of the decode step
f(u) = max(1, −25.74u² + 54.01u + 5.74), u = KV held by running requests / HBM (262,144 tokens by default).
Per request, averaged over the run:
  adm     other requests on its worker whose prefill ended while it decoded (each one's computed tokens in
          8,192-token chunks, one step per chunk),
  adm ms  those steps' prefill_ms (the admissions' cost to it),
  dec-only ms/step  (decode time − adm ms) / decode steps: the KV-driven part,
  co-run  requests running on its worker (itself included), time-averaged over its decode,
  KV      their prompt + half their output tokens (shared prefixes counted per request: an upper estimate),
  f(KV)   DESIGN §6's decode step at that KV, time-averaged (compare with dec-only ms/step)."""
import bisect, csv, sys

BUDGET, HBM = 8192, 262144

def prefill_ms(tokens):
    ms = 0.0
    while tokens > 0:
        t = min(tokens, BUDGET)
        ms += 4.209989e-7 * t * t + 1.518344e-2 * t + 16.50142
        tokens -= t
    return ms

def decode_ms(kv):
    u = kv / HBM
    return max(1.0, -25.74 * u * u + 54.01 * u + 5.74)

for f in sys.argv[1:]:
    rows = list(csv.DictReader(open(f)))
    by_worker = {}
    for r in rows:
        by_worker.setdefault(int(r['worker']), []).append(r)
    adm = adm_ms = dec_ms = steps = corun = kv = fkv = 0.0
    n = 0
    for L in by_worker.values():
        ends = sorted((int(r['arrival_us']) + int(r['ttft_us']), prefill_ms(int(r['computed_tokens']))) for r in L)
        end_t = [e for e, _ in ends]
        # running intervals (admitted .. finished) and their KV, swept into piecewise-constant segments
        ev = []
        for r in L:
            a = int(r['arrival_us'])
            tok = int(r['prompt_tokens']) + int(r['output_tokens']) // 2
            ev += [(a + int(r['queue_wait_us']), 1, tok), (a + int(r['jct_us']), -1, tok)]
        ev.sort()
        seg_t, seg = [], []
        cnt = tokens = 0
        for i, (t, k, tok) in enumerate(ev):
            cnt += k; tokens += k * tok
            nxt = ev[i + 1][0] if i + 1 < len(ev) else t
            if nxt > t:
                seg_t.append(t); seg.append((t, nxt, cnt, tokens))
        for r in L:
            a = int(r['arrival_us']); ds = a + int(r['ttft_us']); de = a + int(r['jct_us'])
            i, j = bisect.bisect_right(end_t, ds), bisect.bisect_right(end_t, de)
            adm += j - i; adm_ms += sum(ms for _, ms in ends[i:j])
            dec_ms += int(r['decode_us']) / 1e3; steps += max(1, int(r['output_tokens']) - 1)
            k = max(0, bisect.bisect_right(seg_t, ds) - 1)
            T = N = K = F = 0.0
            while k < len(seg) and seg[k][0] < de:
                s, e, c, tok = seg[k]; s, e = max(s, ds), min(e, de)
                if e > s:
                    T += e - s; N += (e - s) * c; K += (e - s) * tok; F += (e - s) * decode_ms(tok)
                k += 1
            if T > 0:
                corun += N / T; kv += K / T; fkv += F / T; n += 1
    m = len(rows)
    print(f"{f.split('/')[-1]}: n={m} decode {dec_ms / m:.0f} ms, steps {steps / m:.0f}; adm {adm / m:.2f}, adm ms {adm_ms / m:.0f}; "
          f"dec-only ms/step {(dec_ms - adm_ms) / steps:.2f}; co-run {corun / n:.2f}, KV {kv / n:.0f}, f(KV) {fkv / n:.2f} ms")
