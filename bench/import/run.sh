#!/usr/bin/env bash
# Times `quiver import` of the seed social graph from CSV and the start of `quiver serve` on
# the directory it writes, until the server listens (the time to a served database).
#
# usage: bench/import/run.sh [PEOPLE] [WORK_DIR]   (100000 people, about 650,000 :KNOWS)
# Build first: cargo build --release -p quiver (or set QUIVER to a binary).
set -euo pipefail
people=${1:-100000}
work=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/../.." && pwd)
quiver=${QUIVER:-${CARGO_TARGET_DIR:-$root/target}/release/quiver}

python3 "$root/bench/import/seed_csv.py" "$work/csv" "$people"
rm -rf "$work/data"
now() { date +%s.%N; }
t0=$(now)
"$quiver" import --data-dir "$work/data" --progress off \
  --report-file "$work/import.report" \
  --nodes "Person=$work/csv/people.csv" \
  --relationships "KNOWS=$work/csv/knows.csv"
t1=$(now)
coproc SERVER { exec "$quiver" serve --data-dir "$work/data" \
  --bolt-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 2>"$work/serve.log"; }
read -r bolt_line <&"${SERVER[0]}"
read -r http_line <&"${SERVER[0]}"
t2=$(now)
http=${http_line##* }
counts=$(curl -s -X POST "http://$http/db/neo4j/tx/commit" -H 'Content-Type: application/json' \
  -d '{"statements":[{"statement":"MATCH (p:Person) RETURN count(p)"},{"statement":"MATCH ()-[k:KNOWS]->() RETURN count(k)"}]}')
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || true
echo "$bolt_line"
echo "counts: $counts"
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  printf "import %.2f s, serve start %.2f s, time to a served database %.2f s\n", b - a, c - b, c - a }'
