# usage: python3 tail.py DECISIONS.csv  (a DecisionDump output): the slowest 1 % by TTFT against all requests
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in r:
        if k!='id':
            r[k]=float(r[k])
rows.sort(key=lambda r: -r['ttft'])
n=len(rows); k=max(1,n//100)
tail=rows[:k]
def m(rs,key): return st.mean(r[key] for r in rs)
print("all: ttft %.3f jct %.3f"%(m(rows,'ttft')/1e6, m(rows,'jct')/1e6), "tail n",k, "p99 ttft", tail[-1]['ttft']/1e6)
for key in ['isl','out','queue','load','prefill','ttft','hitH','hitC','preempt','pEff','kvOver','kvUsed','inFlight','Q','qPre','fleetA','harmUs','kvUs','prefUs','queueUs','holUs','totalUs']:
    print(f"{key:9s} tail {m(tail,key):12.1f}   all {m(rows,key):12.1f}")
print("tail with kvOver>0:", sum(1 for r in tail if r['kvOver']>0), "all:", sum(1 for r in rows if r['kvOver']>0))
