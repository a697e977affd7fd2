#!/usr/bin/env bash
# Restart after kill -9 under a steady write load, at the default snapshot thresholds
# (64 MiB of log or ten minutes): the time `quiver serve` takes from its start until it
# listens again, recovering the newest snapshot and the log written after it.
#
# The seed social graph (PEOPLE :Person, 5–8 :KNOWS each) is written as CSV and loaded with
# `quiver import`; the server then gets 1,024 :Counter nodes over HTTP and a steady load of
# small write transactions over Bolt (`quiver lab --workload txwrite`, which increments a
# counter per transaction) for LOAD_SECS, and is killed with SIGKILL while the load runs.
# The restarted server's own recovery line (snapshot load, log replay) is printed beside
# the wall-clock time to ready.
#
# usage: bench/recovery/restart.sh [PEOPLE] [WORK_DIR] [LOAD_SECS]
#        (100000 people, a temporary directory, 60 s)
# Build first: cargo build --release -p quiver (or set QUIVER to a binary).
set -euo pipefail
people=${1:-100000}
work=${2:-$(mktemp -d)}
load_secs=${3:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
quiver=${QUIVER:-${CARGO_TARGET_DIR:-$root/target}/release/quiver}
now() { date +%s.%N; }

# Starts `quiver serve` on the data directory in the background and waits until it prints
# its listening lines; sets PID, BOLT and HTTP, and STARTED (seconds to ready).
start() {
  local log=$1 t0 i
  t0=$(now)
  "$quiver" serve --data-dir "$work/data" --bolt-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 \
    > "$log.out" 2> "$log.err" &
  PID=$!
  for i in $(seq 1 36000); do
    if grep -q '^http listening' "$log.out" 2> /dev/null; then break; fi
    if ! kill -0 "$PID" 2> /dev/null; then
      echo "quiver serve exited; see $log.err" >&2
      exit 1
    fi
    sleep 0.01
  done
  STARTED=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  BOLT=$(awk '/^bolt listening/ { print $NF }' "$log.out")
  HTTP=$(awk '/^http listening/ { print $NF }' "$log.out")
}

cypher() {
  curl -s -X POST "http://$HTTP/db/neo4j/tx/commit" -H 'Content-Type: application/json' \
    -d "{\"statements\":[{\"statement\":\"$1\"}]}"
}

mkdir -p "$work"
if [ ! -f "$work/csv/knows.csv" ]; then
  python3 "$root/bench/import/seed_csv.py" "$work/csv" "$people" > /dev/null
fi
rm -rf "$work/data"
"$quiver" import --data-dir "$work/data" --progress off --report-file "$work/import.report" \
  --nodes "Person=$work/csv/people.csv" --relationships "KNOWS=$work/csv/knows.csv" > /dev/null

start "$work/first"
echo "first start (the imported snapshot): ready in $STARTED s"
cypher 'UNWIND range(0, 1023) AS s CREATE (:Counter {slot: s, hits: 0})' > /dev/null
"$quiver" lab --target "bolt://$BOLT" --workload txwrite --duration-ms $((load_secs * 1000)) \
  --repetitions 1 --no-saturation > "$work/load.log" 2>&1 &
LAB=$!
sleep "$load_secs"
# Kill while the load still runs: the lab's window ends at LOAD_SECS plus its warm-up.
kill -9 "$PID"
wait "$PID" 2> /dev/null || true
wait "$LAB" 2> /dev/null || true
snapshots=$(grep -c 'snapshot written' "$work/first.err" || true)
log_mib=$(du -cm "$work"/data/log-*.qlog | awk 'END { print $1 }')

start "$work/restart"
echo "snapshots taken under the load: $snapshots; log on disk at the kill: $log_mib MiB"
echo "restart after kill -9: ready in $STARTED s"
grep -o 'recovered .*' "$work/restart.err" | sed 's/\x1b\[[0-9;]*m//g' | head -1
counts=$(cypher 'MATCH (p:Person) RETURN count(p)')
echo "people served: $counts"
kill -TERM "$PID"
wait "$PID" 2> /dev/null || true
