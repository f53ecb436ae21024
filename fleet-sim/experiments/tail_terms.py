#!/usr/bin/env python3
"""tail_terms.py REQUESTS.csv CANDLOG.csv [PEER_REQUESTS.csv] [FRACTION]: the slowest FRACTION (default 1 %) of a
tierroute-fitted run by TTFT (bench routing --request-logs) joined with the same run's candidate log (-Dtr.candLog):
for each, the chosen worker's predicted terms (C_prefill, C_queue, C_tier, C_harm, C_decode; ms) against what was
realised (queue wait, tier load, prefill; ms), the runner-up candidate's terms (the cheapest other worker), and what
the peer run (same request ids) realised for the same request. Then the means over the tail and over all requests,
the realised prefill against the predicted one by computed tokens (is long recompute under-priced?), the same on an
idle worker by 8192-token chunks against the simulator's step model, and the predicted C_kv against the realised wait
where the chosen worker was predicted to overflow HBM."""
import csv, statistics as st, sys
from collections import defaultdict

req = list(csv.DictReader(open(sys.argv[1])))
cands = defaultdict(list)
for r in csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith('#')):
    cands[r['req']].append(r)
peer = {r['id']: r for r in csv.DictReader(open(sys.argv[3]))} if len(sys.argv) > 3 and sys.argv[3] != '-' else {}
frac = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01
ms = lambda v: float(v) / 1e3

def chosen_and_peer(rid):
    cs = cands[rid]
    ch = next(c for c in cs if c['worker'] == c['chosen'])
    others = sorted((c for c in cs if c['worker'] != c['chosen']), key=lambda c: float(c['total']))
    return ch, (others[0] if others else None)

req.sort(key=lambda r: -int(r['ttft_us']))
tail = req[:max(1, int(len(req) * frac))]
print(f"{sys.argv[1]}: {len(req)} requests, slowest {len(tail)}")
print("id | ttft | real q/tier/pf | pred prefill/queue/tier/harm/decode | chosen if/wait/hit/peff | runner-up w total-chosen: pf/queue/tier/harm if/hit | peer ttft w hit")
for r in tail[:40]:
    ch, ru = chosen_and_peer(r['id'])
    p = peer.get(r['id'])
    line = (f"{r['id']} | {ms(r['ttft_us']):.0f} | {ms(r['queue_wait_us']):.0f}/{ms(r['tier_load_us']):.0f}/{ms(r['prefill_us']):.0f} | "
            f"{ms(ch['prefill']):.0f}/{ms(ch['queue']):.0f}/{ms(ch['tier']):.0f}/{ms(ch['harm']):.0f}/{ms(ch['decode']):.0f} | "
            f"{ch['in_flight']}/{ch['waiting']}/{ch['hit']}(cpu {ch['hit_cpu']})/{ch['p_eff']}")
    if ru:
        line += (f" | w{ru['worker']} +{ms(float(ru['total']) - float(ch['total'])):.0f}: {ms(ru['prefill']):.0f}/{ms(ru['queue']):.0f}/"
                 f"{ms(ru['tier']):.0f}/{ms(ru['harm']):.0f} if {ru['in_flight']} hit {ru['hit']}(cpu {ru['hit_cpu']})")
    if p:
        line += f" | peer {ms(p['ttft_us']):.0f} w{p['worker']} hit {p['hit_hbm_tokens']}+{p['hit_cpu_tokens']} q {ms(p['queue_wait_us']):.0f}"
    print(line)

def means(name, rs):
    if not rs:
        return
    chs = [chosen_and_peer(r['id'])[0] for r in rs]
    f = lambda k: st.mean(ms(r[k]) for r in rs)
    g = lambda k: st.mean(ms(c[k]) for c in chs)
    line = (f"{name:8s} n={len(rs)} TTFT {f('ttft_us'):.0f} ms: realised queue {f('queue_wait_us'):.0f} tier {f('tier_load_us'):.0f} "
            f"prefill {f('prefill_us'):.0f} | predicted prefill {g('prefill'):.0f} queue {g('queue'):.0f} tier {g('tier'):.0f} "
            f"harm {g('harm'):.0f} decode {g('decode'):.0f} kv {g('kv'):.0f} (overflow predicted for {sum(float(c['kv']) > 0 for c in chs)}) | idle {sum(c['in_flight'] == '0' for c in chs)} "
            f"computed {st.mean(int(r['computed_tokens']) for r in rs):.0f} prompt {st.mean(int(r['prompt_tokens']) for r in rs):.0f}")
    ps = [peer[r['id']] for r in rs if r['id'] in peer]
    if ps:
        line += f" | peer TTFT {st.mean(ms(p['ttft_us']) for p in ps):.0f} computed {st.mean(int(p['computed_tokens']) for p in ps):.0f}"
    print(line)

means('tail', tail)
means('all', req)
if peer:
    pt = sorted(peer.values(), key=lambda r: -int(r['ttft_us']))[:len(tail)]
    print(f"peer's own slowest {len(pt)}: TTFT {st.mean(ms(r['ttft_us']) for r in pt):.0f} ms, queue "
          f"{st.mean(ms(r['queue_wait_us']) for r in pt):.0f}, computed {st.mean(int(r['computed_tokens']) for r in pt):.0f}")
print("realised prefill vs predicted C_prefill, by computed tokens (all requests, chosen worker):")
buckets = defaultdict(list)
for r in req:
    ch, _ = chosen_and_peer(r['id'])
    n = int(r['computed_tokens'])
    b = next(x for x in (512, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 65536, 10**9) if n <= x)
    buckets[b].append((ms(r['prefill_us']), ms(ch['prefill']), ms(r['queue_wait_us']), ms(ch['queue']),
                       ms(r['tier_load_us']), ms(ch['tier']), int(ch['in_flight'])))
for b in sorted(buckets):
    v = buckets[b]
    m = lambda i: st.mean(x[i] for x in v)
    print(f"  ≤{b:>6} n={len(v):5d} prefill real {m(0):7.0f} pred {m(1):7.0f} | queue real {m(2):6.0f} pred {m(3):6.0f} | "
          f"tier real {m(4):6.0f} pred {m(5):6.0f} | in flight {m(6):.2f}")

print("prefill alone: requests routed to an idle worker with no queue wait and no tier load, by 8192-token chunks:")
def step_ms(t):  # DESIGN.md §6 / StepTimeModel: a prefill-only step of t new tokens
    return 4.209989e-7 * t * t + 1.518344e-2 * t + 16.50142
idle = defaultdict(list)
for r in req:
    ch, _ = chosen_and_peer(r['id'])
    if ch['in_flight'] != '0' or int(r['queue_wait_us']) > 0 or int(r['tier_load_us']) > 0:
        continue
    n = int(r['computed_tokens'])
    model, left = 0.0, n
    while left > 0:
        model += step_ms(min(left, 8192)); left -= 8192
    idle[(n - 1) // 8192 + 1].append((ms(r['prefill_us']), ms(ch['prefill']), model, n))
for k in sorted(idle):
    v = idle[k]
    m = lambda i: st.mean(x[i] for x in v)
    print(f"  chunks {k}: n={len(v)} computed {m(3):.0f} realised {m(0):.0f} ms, step model {m(2):.0f}, "
          f"predicted C_prefill {m(1):.0f}, realised − predicted {m(0) - m(1):+.0f}")
print("chosen worker predicted to overflow HBM: C_kv against the realised queue wait + prefill beyond C_prefill (ms):")
kv = defaultdict(list)
for r in req:
    ch, _ = chosen_and_peer(r['id'])
    c = ms(ch['kv'])
    if c <= 0:
        continue
    kv[next(x for x in (50, 200, 500, 1000, 2000, 5000, 1e9) if c <= x)].append(
        (c, ms(r['queue_wait_us']) + ms(r['prefill_us']) - ms(ch['prefill'])))
for k in sorted(kv):
    v = kv[k]
    print(f"  C_kv ≤ {k:g}: n={len(v)} predicted {st.mean(x[0] for x in v):.0f}, realised {st.mean(x[1] for x in v):.0f} "
          f"(median {st.median(x[1] for x in v):.0f})")
