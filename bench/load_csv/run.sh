#!/usr/bin/env bash
# Times `LOAD CSV ... CALL { } IN TRANSACTIONS OF 10000 ROWS` into a release `quiver serve` and
# samples its resident memory, for ROWS rows (default 100000 and 1000000, each on a fresh
# server), to show the load streams: the peak does not grow with the file.
#
# usage: bench/load_csv/run.sh [ROWS...]   (WORK_DIR=... to keep the files)
# Build first: cargo build --release -p quiver (or set QUIVER to a binary). The load runs over
# Bolt through the official Python driver: PYTHON names an interpreter that has it (the one
# tests/drivers/run.sh installs, target/drivers/python-neo4j-6.4.1/bin/python, by default).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
quiver=${QUIVER:-$target/release/quiver}
python=${PYTHON:-$target/drivers/python-neo4j-6.4.1/bin/python}
work=${WORK_DIR:-$(mktemp -d)}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)

rss_kib() { awk -v f="$2" '$1 == f {print $2}' "/proc/$1/status"; }
now() { date +%s.%N; }

for rows in "${sizes[@]}"; do
  rm -rf "$work/data" "$work/import"
  mkdir -p "$work/import"
  python3 "$root/bench/load_csv/gen_csv.py" "$work/import/people.csv" "$rows"
  coproc SERVER { exec "$quiver" serve --data-dir "$work/data" --import-dir "$work/import" \
    --bolt-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 2>"$work/serve.log"; }
  pid=$SERVER_PID
  read -r bolt_line <&"${SERVER[0]}"
  read -r _http <&"${SERVER[0]}"
  bolt=${bolt_line##* }
  before=$(rss_kib "$pid" VmRSS:)
  # Sample VmRSS every 100 ms while the load runs (VmHWM gives the peak at the end).
  ( while kill -0 "$pid" 2>/dev/null; do rss_kib "$pid" VmRSS: >>"$work/rss-$rows.txt"; sleep 0.1; done ) &
  sampler=$!
  t0=$(now)
  count=$("$python" "$root/bench/load_csv/load.py" "$bolt" 10000)
  t1=$(now)
  peak=$(rss_kib "$pid" VmHWM:)
  after=$(rss_kib "$pid" VmRSS:)
  kill -TERM "$pid"
  wait "$pid" || true
  kill "$sampler" 2>/dev/null || true
  echo "rows $rows: $count loaded"
  awk -v a="$t0" -v b="$t1" -v n="$rows" -v r0="$before" -v p="$peak" -v r1="$after" 'BEGIN {
    printf "  %.2f s, %.0f rows/s; RSS before %.1f MiB, peak %.1f MiB, after %.1f MiB\n",
      b - a, n / (b - a), r0 / 1024, p / 1024, r1 / 1024 }'
done
