# usage: python3 linkharm_tail.py REQUESTS.csv [OTHER.csv]: the slowest 1 % of a --request-logs file by TTFT against all
# requests (queue wait, tier load, prefill; hits; workers; sub-agent or orchestrator), ROUNDS.md "Link-harm round"
import csv,sys,statistics as st,collections
def load(p): return {r['id']:r for r in csv.DictReader(open(p))}
A=load(sys.argv[1]); B=load(sys.argv[2]) if len(sys.argv)>2 else None
rows=sorted(A.values(),key=lambda r:-int(r['ttft_us']))
n=len(rows); k=max(1,n//100); tail=rows[:k]
f=lambda rs,key: st.mean(int(r[key]) for r in rs)/1e6
print(f"n={n} tail={k} p99~{int(tail[-1]['ttft_us'])/1e6:.3f}")
for key in ['ttft_us','queue_wait_us','tier_load_us','prefill_us','jct_us']:
    print(f"{key:15s} tail {f(tail,key):8.3f} all {f(rows,key):8.3f}")
for key in ['prompt_tokens','hit_hbm_tokens','hit_cpu_tokens','computed_tokens','preemptions']:
    print(f"{key:15s} tail {st.mean(int(r[key]) for r in tail):10.0f} all {st.mean(int(r[key]) for r in rows):10.0f}")
print("workers of tail:",collections.Counter(r['worker'] for r in tail).most_common())
kind=collections.Counter()
for r in tail:
    kind[( 'sub' if '.' in r['id'].split('-wf')[1] else 'orch', 'cpu' if int(r['hit_cpu_tokens'])>0 else ('hbm' if int(r['hit_hbm_tokens'])>10000 else 'miss'))]+=1
print("kinds:",kind.most_common())
# time clusters
ts=sorted(int(r['arrival_us'])/1e6 for r in tail)
print("arrival times:", ' '.join(f"{t:.0f}" for t in ts))
if B:
    bt=[int(B[r['id']]['ttft_us'])/1e6 for r in tail]
    print(f"peer on same requests: mean ttft {st.mean(bt):.3f}; same worker: n/a")
    brows=sorted(B.values(),key=lambda r:-int(r['ttft_us']))[:k]
    for key in ['ttft_us','queue_wait_us','tier_load_us','prefill_us']:
        print(f"peer own tail {key:15s} {f(brows,key):8.3f}")
    print("peer tail kinds:", collections.Counter('cpu' if int(r['hit_cpu_tokens'])>0 else ('hbm' if int(r['hit_hbm_tokens'])>10000 else 'miss') for r in brows))
