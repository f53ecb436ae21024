# usage: python3 linkharm_waits.py REQUESTS.csv WAITLOG.csv INSTANCE (the wait log's first column: the simulation's
# number in the JVM; a fitted policy's warm-up runs first): why the slowest 1 % waited at the head of their
# queue (budget, max running, HBM for a load, HBM to compute, preemption), from round-linkharm-waitlog.patch's -Dsim.waitLog
import csv,sys,collections,statistics as st
reqlog,waitlog,inst=sys.argv[1],sys.argv[2],sys.argv[3]
A={r['id']:r for r in csv.DictReader(open(reqlog))}
W={}
for line in open(waitlog):
    f=line.strip().split(',')
    if f[0]==inst: W[f[1]]=[int(x) for x in f[3:]]
rows=sorted(A.values(),key=lambda r:-int(r['ttft_us'])); k=len(rows)//100; tail=rows[:k]
names=['budget','maxRun','hbm4load','hbm4comp','preempt','R:budget','R:maxRun','R:-','R:hbm4comp','R:preempt']
def summ(rs,label):
    n=len(rs); tot=[sum(W[r['id']][i] for r in rs)/n/1e6 for i in range(10)]
    q=st.mean(int(r['queue_wait_us']) for r in rs)/1e6; pf=st.mean(int(r['prefill_us']) for r in rs)/1e6
    print(f"{label}: n={n} queue {q:.3f} (diag waiting-sum {sum(tot[:5]):.3f}) prefill-phase {pf:.3f} (diag ready-sum {sum(tot[5:]):.3f})")
    print("   ", ' '.join(f"{names[i]}={tot[i]:.3f}" for i in range(10) if tot[i]>0.0005))
summ(tail,"tail 1%"); summ(rows,"all")
