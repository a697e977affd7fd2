#!/usr/bin/env bash
# What tracing costs: the lab's count workload against three release `quiver serve`s side by
# side, one without tracing, one tracing a share of its transactions (the caller sends no
# trace context, so the sampler decides) and one tracing every transaction, all exporting to
# an OTLP/HTTP sink on loopback (bench/tracing/sink.py). Rounds alternate between the servers
# so that they share the machine's moment; each figure is the median of the rounds.
#
#   bench/tracing/run.sh                  # 8 connections, 3 s windows, 5 rounds, 10% sampling
#   C=1 ROUNDS=7 RATIO=0.1 bench/tracing/run.sh
#   QUIVER=path/to/quiver bench/tracing/run.sh   # a binary already built (default: build it)
#   QUIVER_BEFORE=path/to/older/quiver bench/tracing/run.sh
#                                         # adds a fourth server, `before`: a build from before
#                                         # tracing existed, to show what tracing off costs
#
# Beside the throughput, the server's own CPU time per query (from /proc, through the lab's
# --target-pid) is what to compare: it holds when other work shares the cores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
C=${C:-8}
DURATION_MS=${DURATION_MS:-3000}
ROUNDS=${ROUNDS:-5}
RATIO=${RATIO:-0.1}
OUT=${OUT:-$root/target/bench-tracing}
mkdir -p "$OUT"

quiver=${QUIVER:-}
if [ -z "$quiver" ]; then
    (cd "$root" && cargo build --release -q -p quiver)
    quiver="${CARGO_TARGET_DIR:-$root/target}/release/quiver"
fi

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

sink_port=$(free_port)
python3 "$here/sink.py" "$sink_port" >"$OUT/sink.txt" &
sink=$!
pids+=("$sink")

# name, then the server's extra flags
declare -A flags=(
    [off]=""
    [sampled]="--trace-endpoint http://127.0.0.1:$sink_port --trace-sample-ratio $RATIO"
    [all]="--trace-endpoint http://127.0.0.1:$sink_port --trace-sample-ratio 1"
)
names=(off sampled all)
declare -A binary=([off]="$quiver" [sampled]="$quiver" [all]="$quiver")
if [ -n "${QUIVER_BEFORE:-}" ]; then
    names=(before "${names[@]}")
    flags[before]=""
    binary[before]="$QUIVER_BEFORE"
fi
declare -A bolt pid
for name in "${names[@]}"; do
    port=$(free_port)
    # shellcheck disable=SC2086
    "${binary[$name]}" serve --in-memory --auth none --log warn --bolt-listen "127.0.0.1:$port" \
        --http-listen "127.0.0.1:$(free_port)" ${flags[$name]} >"$OUT/$name.log" 2>&1 &
    pid[$name]=$!
    pids+=("$!")
    bolt[$name]="bolt://127.0.0.1:$port"
done
sleep 1

: >"$OUT/rounds.txt"
for round in $(seq 1 "$ROUNDS"); do
    for name in "${names[@]}"; do
        seed=()
        [ "$round" = 1 ] && seed=(--seed-target)
        "$quiver" lab --mode load --workload count --connections "$C" \
            --duration-ms "$DURATION_MS" --target "${bolt[$name]}" --target-pid "${pid[$name]}" \
            "${seed[@]}" >"$OUT/$name.$round.txt" 2>&1
        qps=$(sed -n 's/^# load.throughput=\([0-9]*\) queries\/s$/\1/p' "$OUT/$name.$round.txt")
        cpu=$(sed -n 's/^# cpu.server=.*(\([0-9.]*\) us\/query).*$/\1/p' "$OUT/$name.$round.txt")
        echo "$name $round $qps $cpu" | tee -a "$OUT/rounds.txt"
    done
done

kill "$sink"
wait "$sink" 2>/dev/null || true
echo
echo "median of $ROUNDS rounds, $C connections, count workload; sampling $RATIO"
python3 - "$OUT/rounds.txt" "$ROUNDS" "${#names[@]}" <<'PY'
import statistics, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines[-int(sys.argv[3]) * int(sys.argv[2]):]]
by = {}
for name, _, qps, cpu in (r for r in rows if len(r) == 4):
    by.setdefault(name, []).append((float(qps), float(cpu)))
base_qps = statistics.median(q for q, _ in by["off"])
base_cpu = statistics.median(c for _, c in by["off"])
print("| server | queries/s | × off | server CPU µs/query | × off |")
print("|---|---:|---:|---:|---:|")
for name in [n for n in ("before", "off", "sampled", "all") if n in by]:
    qps = statistics.median(q for q, _ in by[name])
    cpu = statistics.median(c for _, c in by[name])
    print(f"| {name} | {qps:,.0f} | {qps / base_qps:.3f} | {cpu:.1f} | {cpu / base_cpu:.3f} |")
PY
echo "spans received by the sink (requests, bytes): $(cat "$OUT/sink.txt")"
