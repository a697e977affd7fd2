#!/usr/bin/env bash
# Resident memory of `quiver serve` holding the seed social graph, reached three ways:
# loaded over Bolt with Cypher (the lab's seeding: UNWIND … CREATE batches), after a kill -9
# and a restart that recovers it, and after `quiver import` of the same database: the
# restarted server's graph is exported as CSV (export_csv.py: people, the lab's 1,024
# :Counter nodes, KNOWS) and imported, and the lab's two indexes are created on the result,
# so all three hold the same nodes, relationships, values and indexes.
#
# usage: bench/memory/rss.sh [PEOPLE] [WORK_DIR]   (100000 people, about 650,000 :KNOWS)
# Build first: cargo build --release -p quiver (or set QUIVER to a binary).
set -euo pipefail
people=${1:-100000}
work=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/../.." && pwd)
quiver=${QUIVER:-${CARGO_TARGET_DIR:-$root/target}/release/quiver}

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# Starts `quiver serve` on DIR in the background; sets PID and BOLT (host:port).
start() {
  local dir=$1 log=$2
  "$quiver" serve --data-dir "$dir" --bolt-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 \
    > "$log.out" 2> "$log.err" &
  PID=$!
  for _ in $(seq 1 600); do
    if grep -q "bolt" "$log.out" 2> /dev/null; then break; fi
    sleep 0.1
  done
  BOLT=$(grep -o '127\.0\.0\.1:[0-9]*' "$log.out" | head -1)
}

report() { # label pid
  local kib
  kib=$(rss_kib "$2")
  awk -v l="$1" -v k="$kib" -v p="$people" 'BEGIN {
    printf "%-28s RSS %8.1f MiB\n", l, k / 1024 }'
}

mkdir -p "$work"
rm -rf "$work/bolt" "$work/import"
start "$work/bolt" "$work/bolt-serve"
"$quiver" lab --target "bolt://$BOLT" --seed-target --nodes "$people" --queries 100 \
  --connections 1 --no-saturation > "$work/seed.log" 2>&1
sleep 2
report "loaded over Bolt" "$PID"
kill -9 "$PID"; wait "$PID" 2> /dev/null || true
start "$work/bolt" "$work/restart-serve"
sleep 2
report "after kill -9 and restart" "$PID"
HTTP=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/restart-serve.out" | sed -n 2p)
python3 "$root/bench/memory/export_csv.py" "$HTTP" "$work/csv"
kill -TERM "$PID"; wait "$PID" 2> /dev/null || true

"$quiver" import --data-dir "$work/import" --progress off --report-file "$work/import.report" \
  --nodes "Person=$work/csv/people.csv" --nodes "Counter=$work/csv/counters.csv" \
  --relationships "KNOWS=$work/csv/knows.csv" > /dev/null
start "$work/import" "$work/import-serve"
HTTP=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/import-serve.out" | sed -n 2p)
for ddl in "CREATE INDEX FOR (p:Person) ON (p.id)" "CREATE INDEX FOR (c:Counter) ON (c.slot)"; do
  curl -s -X POST "http://$HTTP/db/neo4j/tx/commit" -H 'Content-Type: application/json' \
    -d "{\"statements\":[{\"statement\":\"$ddl\"}]}" > /dev/null
done
sleep 2
report "after quiver import" "$PID"
kill -TERM "$PID"; wait "$PID" 2> /dev/null || true
