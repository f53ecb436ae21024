# Prints the slowest requests of a CandidateDump run with every candidate's cost terms (seconds), cheapest first.
# usage: python3 candidates.py OUT.cand [N]
import csv, sys, collections
C = collections.defaultdict(list)
for r in csv.reader(open(sys.argv[1])):
    C[r[0]].append(r)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
reqs = sorted(C.items(), key=lambda kv: -int(kv[1][0][3]))
for rid, cs in reqs[:n]:
    ch = int(cs[0][2])
    print(rid, "TTFT %.2f s, chosen w%d" % (int(cs[0][3]) / 1e6, ch))
    for c in sorted(cs, key=lambda c: float(c[8])):
        print("  %s%s overflow=%7s kv_used=%7s in_flight=%3s p_eff=%6s total=%6.2f harm=%5.2f kv=%5.2f prefill=%5.2f queue=%5.2f tier=%5.2f" % (
            c[1], '*' if c[1] == 'w%d' % ch else ' ', c[4], c[5], c[6], c[7], float(c[8]) / 1e6, float(c[9]) / 1e6,
            float(c[10]) / 1e6, float(c[11]) / 1e6, float(c[12]) / 1e6, float(c[13]) / 1e6))
