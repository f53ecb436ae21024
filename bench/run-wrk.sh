#!/usr/bin/env bash
# HTTP benchmark of POST /v1/route with wrk (DESIGN.md targets: ≥ 20 k routes/s, p99 ≤ 2 ms,
# 64 workers, 2 cores shared by wrk and the server). Installs wrk if missing, builds the jar,
# starts the selector with examples/selector-64.yaml on a free loopback port, preloads KV events
# (bench/wrk/Preload.java), warms up for WARMUP seconds, then runs
#   wrk -t2 -c32 -d${DURATION}s --latency -s bench/wrk/route.lua
# and prints req/s and p99. Stops the server on exit.
# Environment: DURATION (20), WARMUP (10), CONNECTIONS (32), THREADS (2), CONFIG (the 64-worker
# example), FINISH=1 / PROGRESS=n / OUTPUT (lifecycle events mixed in by route.lua: each request's finish,
# and a `tokens` event every n of its OUTPUT output tokens; routes/s then comes from the server's counter, and
# routing.requestMaxAge becomes 10 s unless CONFIG is given), LUA (the wrk script, default bench/wrk/route.lua),
# TIERROUTE_JAVA_OPTS (default: 1 GB heap, Shenandoah when the JDK has it, else G1;
# Shenandoah's short pauses measured a third lower p99 than G1 here, see bench/RESULTS.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${DURATION:-20}"
WARMUP="${WARMUP:-10}"
CONNECTIONS="${CONNECTIONS:-32}"
CONFIG_SET="${CONFIG:-}"
CONFIG="${CONFIG:-$ROOT/examples/selector-64.yaml}"
THREADS="${THREADS:-2}"
OUT="$(mktemp -d)"
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$OUT" # the scratch config, server log and scrapes; the figures are printed
}
trap cleanup EXIT # from here: an early exit (wrk missing, the build failing) removes $OUT too
if [ -z "${CONFIG_SET:-}" ] && { [ "${FINISH:-}" = 1 ] || [ "${PROGRESS:-0}" -gt 0 ]; }; then
    # With lifecycle events requests leave through their finish; the example's 500 ms age (for route-only
    # runs) would drop requests whose next event a stalled moment delays, and their events would get 404s.
    sed 's/requestMaxAge: 500ms/requestMaxAge: 10s/' "$CONFIG" >"$OUT/selector.yaml"
    CONFIG="$OUT/selector.yaml"
    EXPIRE_S=11   # the warm-up's unfinished requests leave after the 10 s age
fi

if ! command -v wrk >/dev/null 2>&1; then
    echo "installing wrk ..." >&2
    if [ "$(id -u)" -eq 0 ]; then apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
    else sudo apt-get install -y wrk >/dev/null; fi
fi

"$ROOT/bin/tierroute" --version >/dev/null   # builds cli/target/tierroute.jar when needed

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
URL="http://127.0.0.1:$PORT"
if [ -z "${TIERROUTE_JAVA_OPTS:-}" ]; then
    if java -XX:+UseShenandoahGC -version >/dev/null 2>&1; then GC="-XX:+UseShenandoahGC"; else GC="-XX:+UseG1GC"; fi
    TIERROUTE_JAVA_OPTS="-Xms1g -Xmx1g $GC"
fi
export TIERROUTE_JAVA_OPTS
echo "server JVM options: $TIERROUTE_JAVA_OPTS; config: $CONFIG"
"$ROOT/bin/tierroute" selector --config "$CONFIG" --port "$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!

for _ in $(seq 1 100); do
    curl -sf "$URL/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -sf "$URL/healthz" >/dev/null || { echo "the server did not start:"; cat "$OUT/server.log"; exit 1; }

java -cp "$ROOT/cli/target/tierroute.jar" "$ROOT/bench/wrk/Preload.java" "$URL" qwen3-32b 64
sleep 1
curl -s "$URL/metrics" | grep -E '^tierroute_(kv_events_applied_total|index_blocks) ' || true

if [ "$WARMUP" -gt 0 ]; then
    echo "warm-up: ${WARMUP}s"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "${LUA:-$ROOT/bench/wrk/route.lua}" "$URL" >/dev/null
    sleep "${EXPIRE_S:-1}"     # let the warm-up's unfinished requests expire (routing.requestMaxAge)
fi

curl -s "$URL/metrics" >"$OUT/before.txt"
echo "wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency -s ${LUA:-bench/wrk/route.lua} $URL"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "${LUA:-$ROOT/bench/wrk/route.lua}" "$URL" | tee "$OUT/wrk.txt"

curl -s "$URL/metrics" >"$OUT/after.txt"
RPS="$(awk '/^Requests\/sec:/ {print $2}' "$OUT/wrk.txt")"
P50="$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt")"
P99="$(awk '$1 == "99%" {print $2}' "$OUT/wrk.txt")"
# Routes/s and the server process's CPU per route and per HTTP answer over the measured run, from its metrics.
read -r ROUTES CPU_ROUTE CPU_HTTP < <(python3 - "$OUT/before.txt" "$OUT/after.txt" "$DURATION" <<'PY'
import re, sys
def read(path):
    routed = cpu = answers = 0.0
    for line in open(path):
        if re.match(r'tierroute_routes_total\{outcome="routed"\} ', line):
            routed = float(line.split()[-1])
        elif line.startswith('process_cpu_seconds_total '):
            cpu = float(line.split()[-1])
        elif line.startswith('tierroute_http_responses_total{'):
            answers += float(line.split()[-1])
    return routed, cpu, answers
(r0, c0, h0), (r1, c1, h1) = read(sys.argv[1]), read(sys.argv[2])
routes, cpu, answers = r1 - r0, c1 - c0, h1 - h0
print(f"{routes / float(sys.argv[3]):.0f} {cpu / max(routes, 1) * 1e6:.1f} {cpu / max(answers, 1) * 1e6:.1f}")
PY
)
NON2XX="$(awk '/Non-2xx/ {print $NF}' "$OUT/wrk.txt")"
echo
echo "RESULT req/s=$RPS routes/s=$ROUTES p50=$P50 p99=$P99 non-2xx=${NON2XX:-0} FINISH=${FINISH:-} PROGRESS=${PROGRESS:-}" \
     "server CPU: ${CPU_ROUTE} µs per route, ${CPU_HTTP} µs per HTTP answer ($(nproc) cores shared by wrk and the server;" \
     "$(uptime | sed 's/.*load/load/'))"
curl -s "$URL/metrics" | grep -E '^tierroute_routes_total|^tierroute_http_responses_total' || true
# The server's own view: route latency from arrival to answer (tierroute_route_latency_seconds),
# over the measured run only, so wrk's and the kernel's share of the latency shows.
python3 - "$OUT/before.txt" "$OUT/after.txt" <<'PY'
import re, sys
def buckets(path):
    out = {}
    for line in open(path):
        m = re.match(r'tierroute_route_latency_seconds_bucket\{le="([^"]+)"\} (\S+)', line)
        if m:
            out[float(m.group(1))] = float(m.group(2))
    return out
b, a = buckets(sys.argv[1]), buckets(sys.argv[2])
les = sorted(a)
total = a[les[-1]] - b.get(les[-1], 0)
def q(p):
    for le in les:
        if a[le] - b.get(le, 0) >= p * total:
            return le
print("server-side route latency over the run (histogram bucket upper bounds): "
      + ", ".join(f"p{p*100:g} <= {q(p)*1e3:g} ms" for p in (0.5, 0.9, 0.99, 0.999)))
PY
