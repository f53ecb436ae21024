#!/usr/bin/env bash
# Where a routing decision's time goes: hashing, the index walk, the request's context, scoring every worker, the
# pick (bench/RESULTS.md, "Decision latency measured again"). The phase timers are not in the selector: they live in
# bench/decision-phases.patch, which this applies to a throw-away worktree of HEAD, builds there (selector-runtime's
# test classes, where DecisionBenchmark's fixture is) and runs DecisionPhases on, once per worker count.
#
# It measures the committed HEAD (uncommitted changes are not in the worktree), with the timers of the patch as it is
# in the working tree; the timers are static fields, right for DecisionPhases' one thread only.
#
# usage: bench/run-decision-phases.sh [workers...]        (default: 64 256)
# env:   MVN_ARGS (extra Maven arguments, e.g. -o),
#        TIERROUTE_MOONCAKE (the conversation trace; default ../shared/traces/mooncake/conversation_trace.jsonl)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRACE="${TIERROUTE_MOONCAKE:-$(cd "$ROOT/.." && pwd)/shared/traces/mooncake/conversation_trace.jsonl}"
[ -f "$TRACE" ] || { echo "no Mooncake trace at $TRACE (set TIERROUTE_MOONCAKE)" >&2; exit 1; }
WORKERS=("$@")
[ ${#WORKERS[@]} -gt 0 ] || WORKERS=(64 256)

WT="$(mktemp -d "${TMPDIR:-/tmp}/tierroute-phases.XXXXXX")"
trap 'git -C "$ROOT" worktree remove --force "$WT" 2>/dev/null || true; rm -rf "$WT"' EXIT
git -C "$ROOT" worktree add -q --detach "$WT" HEAD
git -C "$WT" apply "$ROOT/bench/decision-phases.patch"
(cd "$WT" && mvn -B -q ${MVN_ARGS:-} -pl selector-runtime -am test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$WT/test.classpath" -Dfuzz.skip)
CP="$WT/selector-runtime/target/test-classes:$WT/selector-runtime/target/classes:$(cat "$WT/test.classpath")"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1), $(git -C "$ROOT" rev-parse --short HEAD)" >&2
for w in "${WORKERS[@]}"; do
  # As DecisionBenchmark's fork: a pre-touched 4 GB heap, so no page fault of the heap's first pass is counted.
  java -Xms4g -Xmx4g -XX:+UseParallelGC -XX:+AlwaysPreTouch -Dtierroute.mooncake="$TRACE" -cp "$CP" \
      io.tierroute.selector.bench.DecisionPhases "$w"
  echo
done
