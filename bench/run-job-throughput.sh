#!/usr/bin/env bash
# Runs the fitting job's benchmark (streaming-jobs/src/test/java/io/tierroute/jobs/bench/JobThroughputBench):
# an embedded KRaft broker and a local Flink MiniCluster in one JVM, checkpoints on, exactly-once params sink.
#
# usage: bench/run-job-throughput.sh [throughput [requestsPerScope] [telemetrySeconds]]
#        bench/run-job-throughput.sh latency [seconds] [requestsPerSecond]
#   throughput (default): pre-fills 4 scopes (default 400 000 requests = decision + completion each per
#     scope, and 6 000 s of 8 workers' telemetry per scope), then reports the telemetry + completion
#     records/s the job processes, from the offsets committed with each completed checkpoint.
#     It also prints the CPU seconds this JVM (job + in-process broker) spent per record over that window.
#   latency: live load at event time = now against the job at its default cadence; reports p50/p99 of
#     record send -> first committed snapshot on tierroute.params whose fitted window covers the record.
# env: MVN_ARGS (e.g. -o), SKIP_BUILD=1 (reuse target/ as it is), JAVA_OPTS (default -Xmx3g; -XX:+UseParallelGC is
#   added unless JAVA_OPTS names a collector).
#   JAVA_OPTS may also carry the benchmark's own switches (defaults = the first three rounds' set-up):
#   -Dbench.measureFrom=0.4 opens the measured window at 40 % of the input instead of 5 % (JIT warm-up left
#   out; use with a longer input, e.g. throughput 300000 6000, or 1200000 12000 for a window ≈ 35–55 s into the
#   job, past most of the JIT's work: streaming-jobs README, seventh round; -Dbench.measureFrom=0.5 with throughput
#   4800000 48000 measures the steady state 60-120 s into the job, the figure for the 200 k records/s target:
#   bench/RESULTS.md, "Steady state"), -Dbench.broker=process runs the broker in
#   its own JVM (the CPU figures are then the job's; the broker's is printed apart), -Dbench.jobArgs=--flag,value,...
#   passes further job flags (e.g. -Dbench.jobArgs=--max-watermark-drift,6s for the first four rounds' alignment;
#   the benchmark sets 60s). Each window prints records/s, CPU per record, cores busy, CPU and allocation by thread
#   and Flink's per-subtask busy / back-pressured / idle ms per second; THROUGHPUT = 40 % (or measureFrom) to 95 %
#   of the input as in the earlier rounds, STEADY = up to 85 % or the first drained decisions/completions partition
#   (the end of a finite backlog stalls the aligned sources for --idleness; streaming-jobs/README.md, fifth round).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE="$ROOT/streaming-jobs"
CP_FILE="$MODULE/target/bench.classpath"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # One reactor build, nothing installed into ~/.m2: the class path names the sibling modules' target/classes.
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl streaming-jobs -am test-compile dependency:build-classpath \
      -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
SNAP="$(mktemp -d "${TMPDIR:-/tmp}/tierroute-jobbench.XXXXXX")"
trap 'rm -rf "$SNAP"' EXIT
cp -r "$MODULE/target/classes" "$SNAP/classes"
cp -r "$MODULE/target/test-classes" "$SNAP/test-classes"
CP="$SNAP/test-classes:$SNAP/classes:$(cat "$CP_FILE")"

# The benchmark's JVM is the TaskManager: ParallelGC as the deployments set it (env.java.opts.taskmanager;
# streaming-jobs README, sixth round), unless JAVA_OPTS names a collector (e.g. -XX:+UseG1GC for the earlier rounds).
OPTS="${JAVA_OPTS:--Xmx3g}"
case "$OPTS" in *-XX:+Use*GC*) ;; *) OPTS="$OPTS -XX:+UseParallelGC" ;; esac
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1), load $(cut -d' ' -f1-3 /proc/loadavg), JVM options: $OPTS" >&2
cd "$ROOT"
java $OPTS --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$CP" io.tierroute.jobs.bench.JobThroughputBench "$@"
