#!/usr/bin/env bash
# Selector start-up on a params topic with many snapshot versions (with forests), and swap time, on
# an embedded KRaft broker (selector-runtime's ParamsLoadBench; figures in selector-runtime/README.md).
#
# usage: bench/run-params-load.sh [versions=1000] [startups=5] [swaps=50] [workers=64]
# env: MVN_ARGS (extra Maven arguments, e.g. -o), SKIP_BUILD=1 (reuse target/ as it is), JAVA_OPTS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE="$ROOT/selector-runtime"
CP_FILE="$MODULE/target/params-bench.classpath"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl selector-runtime -am install -DskipTests)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl deploy install -DskipTests)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl selector-runtime test-compile)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl selector-runtime dependency:build-classpath \
      -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
SNAP="$(mktemp -d "${TMPDIR:-/tmp}/tierroute-params-bench.XXXXXX")"
trap 'rm -rf "$SNAP"' EXIT
cp -r "$MODULE/target/classes" "$SNAP/classes"
cp -r "$MODULE/target/test-classes" "$SNAP/test-classes"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1)" >&2
java ${JAVA_OPTS:--Xmx2g} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$SNAP/test-classes:$SNAP/classes:$(cat "$CP_FILE")" io.tierroute.selector.bench.ParamsLoadBench "$@"
