#!/usr/bin/env bash
# What `tierroute snapshots trim` buys: selector start-up on a params topic with a day of versions (1 s cadence),
# the trim's run time, and start-up once compacted, on one embedded KRaft broker (cli's ParamsTrimBench;
# figures in bench/RESULTS.md, "Parameter loader").
#
# usage: bench/run-params-trim.sh [versions=86400] [keep=10000] [workers=16] [startups=3]
# env: MVN_ARGS (extra Maven arguments, e.g. -o), SKIP_BUILD=1 (reuse target/ as it is), JAVA_OPTS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE="$ROOT/cli"
CP_FILE="$MODULE/target/params-trim-bench.classpath"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl cli -am install -DskipTests -Dfuzz.skip)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl cli test-compile -Dfuzz.skip)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl cli dependency:build-classpath \
      -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
SNAP="$(mktemp -d "${TMPDIR:-/tmp}/tierroute-trim-bench.XXXXXX")"
trap 'rm -rf "$SNAP"' EXIT
cp -r "$MODULE/target/classes" "$SNAP/classes"
cp -r "$MODULE/target/test-classes" "$SNAP/test-classes"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1)" >&2
java ${JAVA_OPTS:--Xmx2g} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$SNAP/test-classes:$SNAP/classes:$(cat "$CP_FILE")" io.tierroute.cli.bench.ParamsTrimBench "$@"
