#!/usr/bin/env bash
# Longer fuzzing than CI's: runs every *FuzzTest ROUNDS times. Each round continues from the working
# corpus Jazzer keeps in <module>/.cifuzz-corpus (git-ignored), so ROUNDS × maxExecutions inputs reach
# each boundary. A finding fails the round, is written as crash-<sha1> under the test's
# src/test/resources/**/<Class>Inputs/<method>/ (replayed by every later build: keep it, renamed to
# say what it caught, once fixed) and stops the script.
#
# usage: bench/run-fuzz.sh [ROUNDS] [test pattern]
#   bench/run-fuzz.sh 20                      # every boundary, 20 rounds
#   bench/run-fuzz.sh 50 'HttpApiFuzzTest'    # one boundary, 50 rounds
# To promote the working corpus into the kept one after a long run (optional; it grows the repo):
#   cp <module>/.cifuzz-corpus/<Class>/<method>/* <module>/src/test/resources/<package>/<Class>Inputs/<method>/
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${1:-10}"
PATTERN="${2:-*FuzzTest}"
MODULES="schemas,selector-runtime,fleet-sim"

cd "$ROOT"
for round in $(seq 1 "$ROUNDS"); do
  start=$(date +%s)
  # The `fuzz` surefire execution (own JVM per class, JAZZER_FUZZ=1) runs the tests -Dfuzz.test names;
  # -Dtest=none keeps the ordinary tests out of these rounds.
  # A fresh seed each round (CI keeps the pom's fixed one); printed so a finding's round replays.
  seed=$(( (RANDOM << 15 | RANDOM) + 1 ))
  echo "round $round/$ROUNDS: seed $seed"
  mvn -B -q ${MVN_ARGS:-} -pl "$MODULES" -am test -Djazzer.fuzz=1 -Djazzer.seed="$seed" -Dfuzz.test="$PATTERN" \
      -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
  echo "round $round/$ROUNDS: no finding ($(( $(date +%s) - start )) s)"
done
