#!/usr/bin/env bash
# usage: variant_table.sh NAME JAR [java -D options...]: the README's full table (every workload and load),
# tierroute-fitted only (POL=... for other policies), one JVM at a time, niced; results under $OUT/NAME
# (OUT defaults to /tmp/r6/out; ONLY=mooncake,chat restricts the workloads; ARGS="--seed 2" adds bench options).
set -u
NAME=$1; JAR=$2; shift 2
OUT="${OUT:-/tmp/r6/out}/$NAME"; mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
# ARGS is split into words on purpose (several bench options); the JVM options ($@) and the jar stay whole
R=(nice -n 19 java -Xmx3g "$@" -jar "$JAR" bench routing --workers 8 --policies "${POL:-tierroute-fitted}")
T=../shared/traces/mooncake/conversation_trace.jsonl
failed=0
for spec in "mooncake:--trace $T --load 1,2.5,2.75,3" "agentic-pcie:--workload agentic-pcie --load 1,1.25" \
  "chat:--workload chat --load 1,2,4" "cpu-overflow:--workload cpu-overflow --load 1,1.5,2" \
  "agentic:--workload agentic --load 1,2" "llmd-blog:--workload llmd-blog --load 0.5,1,2,3"; do
  w=${spec%%:*}; args=${spec#*:}
  if [ -n "${ONLY:-}" ] && [[ ",$ONLY," != *",$w,"* ]]; then continue; fi
  s=$(date +%s)
  rm -f "$OUT/$w/results.csv" # a failed run must not leave an earlier run's results for the verdict scripts to read
  # shellcheck disable=SC2086
  "${R[@]}" ${ARGS:-} $args --out "$OUT/$w" > "$OUT/$w.log" 2>&1
  rc=$?
  echo "$w rc=$rc $(( $(date +%s) - s ))s" >> "$OUT/times"
  if [ "$rc" -ne 0 ]; then echo "variant_table.sh: $w failed (exit $rc): $OUT/$w.log" >&2; failed=1; fi
done
echo done >> "$OUT/times"
exit $failed
