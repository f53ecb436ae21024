#!/usr/bin/env bash
# Builds a module's test classes (where the JMH benchmarks live; selector-runtime unless MODULE says
# otherwise) and runs JMH on them.
#
# usage: bench/run-jmh.sh [regex] [jmh args...]
#   bench/run-jmh.sh IndexMatch -wi 3 -i 5 -w 1s -r 1s -p workers=64
#   bench/run-jmh.sh IndexIngest -wi 3 -i 5 -w 1s -r 1s -prof gc
# env: MVN_ARGS (extra Maven arguments, e.g. -o), SKIP_BUILD=1 (reuse target/ as it is),
#      JAVA_OPTS (options for the JMH host JVM; forks take theirs from @Fork),
#      MODULE (the module whose benchmarks to run, default selector-runtime; e.g. MODULE=fitter).
# The benchmarks read the Mooncake trace from ../shared/traces relative to the repository root
# (override with -jvmArgsAppend -Dtierroute.mooncake=/path/to/conversation_trace.jsonl).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE_NAME="${MODULE:-selector-runtime}"
MODULE="$ROOT/$MODULE_NAME"
REGEX="${1:-.*}"
[ $# -gt 0 ] && shift

CP_FILE="$MODULE/target/jmh.classpath"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # Install the module's own dependencies (schemas, the parent pom) so the single-module calls
  # below resolve them on a fresh machine too.
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl "$MODULE_NAME" -am install -DskipTests)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl "$MODULE_NAME" test-compile)
  (cd "$ROOT" && mvn -B -q ${MVN_ARGS:-} -pl "$MODULE_NAME" dependency:build-classpath \
      -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE")
fi
# Run from a private copy of the compiled classes: other builds may rewrite target/ meanwhile.
SNAP="$(mktemp -d "${TMPDIR:-/tmp}/tierroute-jmh.XXXXXX")"
trap 'rm -rf "$SNAP"' EXIT
cp -r "$MODULE/target/classes" "$SNAP/classes"
cp -r "$MODULE/target/test-classes" "$SNAP/test-classes"
CP="$SNAP/test-classes:$SNAP/classes:$(cat "$CP_FILE")"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, $(java -version 2>&1 | head -1)" >&2
cd "$ROOT"
java ${JAVA_OPTS:-} -cp "$CP" org.openjdk.jmh.Main "$REGEX" "$@"
