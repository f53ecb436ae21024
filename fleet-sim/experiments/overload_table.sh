#!/usr/bin/env bash
# usage: overload_table.sh NAME JAR [java -D options...]: the cells past the table's loads where the index's blind
# spot shows (nvme-overflow without its drive at 1.5 and 2, cpu-overflow at 2.5 and 3, nvme-overflow at 1, 1.5 and 2),
# tierroute-fitted only (POL=... for other policies), seeds SEEDS (default 1-10), one JVM at a time, niced; results
# under $OUT/seedN/NAME/{n0,co,nv} (OUT defaults to /tmp/claims/over), read by overload_verdict.py.
set -u
NAME=$1; JAR=$2; shift 2
cd "$(dirname "$0")/../.."
failed=0
# one cell: a failed run must not leave an earlier run's results for overload_verdict.py to read
cell() {
  local out=$1; shift
  rm -f "$out/results.csv"
  "${R[@]}" "$@" --out "$out" > "$out.log" 2>&1 || { echo "overload_table.sh: $out failed (exit $?): $out.log" >&2; failed=1; }
}
for s in ${SEEDS:-1 2 3 4 5 6 7 8 9 10}; do
  O="${OUT:-/tmp/claims/over}/seed$s/$NAME"; mkdir -p "$O"
  R=(nice -n 19 java -Xmx3g "$@" -jar "$JAR" bench routing --workers 8 --policies "${POL:-tierroute-fitted}" --seed "$s")
  cell "$O/n0" --workload nvme-overflow --nvme-tokens 0 --load 1.5,2
  cell "$O/co" --workload cpu-overflow --load 2.5,3
  cell "$O/nv" --workload nvme-overflow --load 1,1.5,2
done
exit $failed
