#!/usr/bin/env bash
# Soak of the selector (issue 8, endurance): wrk route load and a steady KV event stream for DURATION
# seconds with the prefix index at its cap. Judges: throughput and p99 steady, heap after GC flat,
# index blocks never above the cap. Like bench/run-wrk.sh it builds the jar, starts the selector
# (examples/selector-64.yaml with index.maxBlocks = CAP, written to a temp dir) on a free loopback
# port and preloads the 256 prompts route.lua asks for (bench/wrk/Preload.java). Then
# bench/wrk/KvStream.java first posts 1.5 × CAP fresh blocks as fast as the server takes them (the
# cap prunes from then on), a WARMUP wrk run follows (not counted), and then, with KvStream posting
# KV_RATE batches/s throughout (each: 1 prompt of 64 blocks stored on HBM, an earlier one's 48 fresh
# blocks moved to CPU, every other time an older one's removed; half of each prompt stays, so only
# the cap bounds the index), DURATION / WINDOW consecutive wrk windows of WINDOW seconds run:
#   wrk -t$THREADS -c$CONNECTIONS -d${WINDOW}s --latency -s bench/wrk/route.lua
# Between windows, outside the measured time: /metrics (index blocks, in flight, KV events applied,
# refused, failed) and heap after GC (`jcmd PID GC.run`, then jvm_memory_used_bytes{area="heap"}).
# Prints one row per window and a summary; exits 1 when a window had errors or the index passed its cap.
# Environment: DURATION (600), WINDOW (30), KV_RATE (500 batches/s ≈ 1,250 KV events/s), CAP
# (500000 blocks), WARMUP (10), CONNECTIONS (32), THREADS (2), TIERROUTE_JAVA_OPTS (as run-wrk.sh:
# 1 GB heap, Shenandoah when the JDK has it, else G1), KEEP=1 keeps the temp dir with the raw outputs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${DURATION:-600}"
WINDOW="${WINDOW:-30}"
KV_RATE="${KV_RATE:-500}"
CAP="${CAP:-500000}"
WARMUP="${WARMUP:-10}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"
WINDOWS=$(( DURATION / WINDOW ))
[ "$WINDOWS" -ge 2 ] || { echo "DURATION ($DURATION) must hold at least 2 windows of WINDOW ($WINDOW) s" >&2; exit 2; }
OUT="$(mktemp -d "${TMPDIR:-/tmp}/tierroute-soak.XXXXXX")"

if ! command -v wrk >/dev/null 2>&1; then
    echo "installing wrk ..." >&2
    if [ "$(id -u)" -eq 0 ]; then apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
    else sudo apt-get install -y wrk >/dev/null; fi
fi
command -v jcmd >/dev/null || { echo "jcmd (from the JDK) is needed to force a GC between windows" >&2; exit 2; }

"$ROOT/bin/tierroute" --version >/dev/null   # builds cli/target/tierroute.jar when needed
JAR="$ROOT/cli/target/tierroute.jar"

# The benchmark's 64 workers with a cap the stream passes early in the run.
sed -E "s/^index:.*/index: {maxBlocks: $CAP}/" "$ROOT/examples/selector-64.yaml" >"$OUT/selector-soak.yaml"
grep -q "maxBlocks: $CAP" "$OUT/selector-soak.yaml" || { echo "could not set index.maxBlocks in the config" >&2; exit 1; }

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
URL="http://127.0.0.1:$PORT"
if [ -z "${TIERROUTE_JAVA_OPTS:-}" ]; then
    if java -XX:+UseShenandoahGC -version >/dev/null 2>&1; then GC="-XX:+UseShenandoahGC"; else GC="-XX:+UseG1GC"; fi
    TIERROUTE_JAVA_OPTS="-Xms1g -Xmx1g $GC"
fi
export TIERROUTE_JAVA_OPTS
"$ROOT/bin/tierroute" selector --config "$OUT/selector-soak.yaml" --port "$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!   # bin/tierroute execs java: this is the JVM's pid, for jcmd
STREAM=""
cleanup() {
    [ -n "$STREAM" ] && kill "$STREAM" 2>/dev/null || true
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    if [ "${KEEP:-0}" = 1 ]; then echo "raw outputs kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

for _ in $(seq 1 150); do
    curl -sf "$URL/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -sf "$URL/healthz" >/dev/null || { echo "the server did not start:"; cat "$OUT/server.log"; exit 1; }

# value of one metric line (exact name with labels) in a /metrics dump, 0 when absent
metric() { awk -v k="$2" '$1 == k {v = $2} END {print v == "" ? 0 : v}' "$1"; }

echo "soak: ${WINDOWS} windows × ${WINDOW}s, KV_RATE=${KV_RATE} batches/s, index cap ${CAP} blocks, wrk -t$THREADS -c$CONNECTIONS"
echo "server JVM (pid $SERVER): $TIERROUTE_JAVA_OPTS; $(nproc) cores shared by wrk, the KV streamer and the server; $(java -version 2>&1 | head -1)"
java -cp "$JAR" "$ROOT/bench/wrk/Preload.java" "$URL" qwen3-32b 64

FILL=$(( CAP * 3 / 2 ))
STREAM_SECONDS=$(( DURATION + WARMUP + WINDOWS * 15 + 60 ))   # outlives the run; killed at the end
java -cp "$JAR" "$ROOT/bench/wrk/KvStream.java" "$URL" qwen3-32b 64 "$KV_RATE" "$FILL" "$STREAM_SECONDS" \
    >"$OUT/kvstream.log" 2>&1 &
STREAM=$!
for _ in $(seq 1 600); do
    grep -q '^filled' "$OUT/kvstream.log" && break
    kill -0 "$STREAM" 2>/dev/null || { echo "the KV streamer stopped:"; cat "$OUT/kvstream.log"; exit 1; }
    sleep 0.5
done
grep '^filled' "$OUT/kvstream.log" || { echo "the KV streamer did not fill the index in 5 minutes"; exit 1; }

if [ "$WARMUP" -gt 0 ]; then
    echo "warm-up: ${WARMUP}s (not counted)"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$ROOT/bench/wrk/route.lua" "$URL" >/dev/null
fi

# One sample between windows: the server's gauges and counters, and its heap used right after a
# forced GC, the lower of two (the KV stream goes on, and Shenandoah runs an explicit GC concurrently,
# so one reading can include what was allocated during the cycle).
sample() {
    local heap=""
    for _ in 1 2; do
        jcmd "$SERVER" GC.run >/dev/null
        curl -sf "$URL/metrics" >"$OUT/metrics.txt"
        h="$(metric "$OUT/metrics.txt" 'jvm_memory_used_bytes{area="heap"}')"
        heap="$(python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$h" $heap)"
    done
    printf '%s %s %s %s %s %s\n' \
        "$(metric "$OUT/metrics.txt" 'tierroute_index_blocks')" \
        "$heap" \
        "$(metric "$OUT/metrics.txt" 'tierroute_kv_events_applied_total')" \
        "$(metric "$OUT/metrics.txt" 'tierroute_kv_events_refused_total')" \
        "$(metric "$OUT/metrics.txt" 'tierroute_kv_events_failed_total')" \
        "$(metric "$OUT/metrics.txt" 'tierroute_inflight_requests')"
}

# columns: window start_s req/s p50 p99 errors index_blocks heap_bytes kv_applied kv_refused kv_failed inflight
: >"$OUT/windows.tsv"
START=$(date +%s)
PREV="$(sample)"
echo "# before window 1: index blocks, heap after GC (bytes), KV applied, refused, failed, in flight: $PREV"
printf '%6s %7s %9s %8s %8s %6s %12s %10s %12s %10s %9s\n' window t_s "req/s" "p50" "p99" errors \
    "index_blks" "heapGC_MB" "kv_applied" "kv_refused" inflight
for w in $(seq 1 "$WINDOWS"); do
    T=$(( $(date +%s) - START ))
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WINDOW}s" --latency -s "$ROOT/bench/wrk/route.lua" "$URL" >"$OUT/wrk-$w.txt"
    NOW="$(sample)"
    read -r _ _ KV0 REF0 FAIL0 _ <<<"$PREV"
    read -r BLOCKS HEAP KV1 REF1 FAIL1 INFL <<<"$NOW"
    python3 - "$OUT/wrk-$w.txt" "$w" "$T" "$BLOCKS" "$HEAP" "$KV0" "$KV1" "$REF0" "$REF1" "$FAIL0" "$FAIL1" "$INFL" \
        >>"$OUT/windows.tsv" <<'PY'
import re, sys
f, w, t, blocks, heap, kv0, kv1, ref0, ref1, fail0, fail1, infl = sys.argv[1:]
text = open(f).read()
def ms(v):
    m = re.match(r'([\d.]+)(us|ms|s|m)$', v)
    return float(m.group(1)) * {'us': 1e-3, 'ms': 1, 's': 1e3, 'm': 6e4}[m.group(2)]
rps = float(re.search(r'^Requests/sec:\s+([\d.]+)', text, re.M).group(1))
p50 = ms(re.search(r'^\s+50%\s+(\S+)', text, re.M).group(1))
p99 = ms(re.search(r'^\s+99%\s+(\S+)', text, re.M).group(1))
errors = sum(int(n) for n in re.findall(r'Non-2xx or 3xx responses: (\d+)', text))
m = re.search(r'Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)', text)
errors += sum(int(x) for x in m.groups()) if m else 0
errors += int(float(fail1) - float(fail0))
print(w, t, rps, p50, p99, errors, int(float(blocks)), float(heap), int(float(kv1) - float(kv0)),
      int(float(ref1) - float(ref0)), int(float(infl)), sep='\t')
PY
    awk -F'\t' 'END {printf "%6d %7d %9.0f %6.2fms %6.2fms %6d %12d %10.1f %12d %10d %9d\n",
        $1, $2, $3, $4, $5, $6, $7, $8 / 1048576, $9, $10, $11}' "$OUT/windows.tsv"
    PREV="$NOW"
done
grep -E '^kv-events' "$OUT/kvstream.log" || true   # the streamer's errors, if any

echo
python3 - "$OUT/windows.tsv" "$CAP" "$WINDOW" <<'PY'
import statistics as st, sys
rows = [l.split('\t') for l in open(sys.argv[1]) if l.strip()]
cap, window = int(sys.argv[2]), float(sys.argv[3])
n = len(rows); h = n // 2
rps = [float(r[2]) for r in rows]; p99 = [float(r[4]) for r in rows]
errors = sum(int(r[5]) for r in rows); blocks = [int(r[6]) for r in rows]
heap = [float(r[7]) / 2**20 for r in rows]; t = [float(r[1]) / 60 for r in rows]
kv = sum(int(r[8]) for r in rows); refused = sum(int(r[9]) for r in rows)
first, last = slice(0, h), slice(n - h, n)
thr = st.mean(rps[last]) / st.mean(rps[first])
p99r = st.median(p99[last]) / st.median(p99[first])
def slope(xs, ys):   # least squares, per minute
    mx, my = st.mean(xs), st.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
sl = slope(t[n - h:], heap[n - h:]) if h >= 2 else float('nan')
ok = lambda c: 'ok' if c else 'CHECK'
print(f"SUMMARY over {n} windows of {window:g} s (first half = windows 1-{h}, last half = windows {n - h + 1}-{n}):")
print(f"  throughput  last/first half mean req/s   {thr:6.3f}   ({st.mean(rps[first]):.0f} -> {st.mean(rps[last]):.0f})   [{ok(thr >= 0.9)}: >= 0.90]")
print(f"  p99         last/first half median p99   {p99r:6.3f}   ({st.median(p99[first]):.2f} -> {st.median(p99[last]):.2f} ms)   [{ok(p99r <= 1.25)}: <= 1.25]")
print(f"  heap        after-GC slope, last half    {sl:+6.2f} MB/min   (after GC: min {min(heap):.1f}, max {max(heap):.1f} MB)   [{ok(sl <= 1.0)}: <= +1 MB/min]")
print(f"  index       max blocks / cap             {max(blocks) / cap:6.3f}   ({max(blocks)} of {cap}; sampled between windows)   [{ok(max(blocks) <= cap)}: <= 1]")
print(f"  errors      wrk non-2xx + socket errors + KV events failed: {errors}   [{ok(errors == 0)}: 0]")
print(f"  KV stream   {kv} KV events applied between the first and last sample ({kv / ((t[-1] - t[0]) * 60 + window):.0f}/s), {refused} refused with 503 (retried)")
sys.exit(0 if errors == 0 and max(blocks) <= cap else 1)
PY
