import csv, sys, numpy as np
# usage: python3 overflow_regression.py DECISIONS.csv  (a DecisionDump output)
rows = list(csv.DictReader(open(sys.argv[1])))
X=[];y=[]
for r in rows:
    X.append([1.0, float(r['pEff']), float(r['qPre']), float(r['kvOver'])]); y.append(float(r['ttft']))
X=np.array(X); y=np.array(y)
b,res,rk,sv=np.linalg.lstsq(X,y,rcond=None)
pred=X@b; r2=1-((y-pred)**2).sum()/((y-y.mean())**2).sum()
print("intercept,pEff,qPre,kvOver:", b, "R2", r2)
X2=X[:,[0,1]]; X2=np.column_stack([X2, X[:,2]+X[:,3]])
b2=np.linalg.lstsq(X2,y,rcond=None)[0]; p2=X2@b2; print("combined:", b2, "R2", 1-((y-p2)**2).sum()/((y-y.mean())**2).sum())
