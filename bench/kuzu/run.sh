#!/usr/bin/env bash
# Quiver's engine against Kuzu on the same generated social graph, in the same run:
# in-process queries per second, one thread each, and the ratio Quiver / Kuzu.
#
#   bench/kuzu/run.sh [persons] [seconds-per-query]
#
# Installs kuzu (PyPI, pinned) into a venv under target/, exports the graph Quiver generates
# as CSV, loads it into Kuzu, times Kuzu, then times Quiver.
set -euo pipefail
cd "$(dirname "$0")/../.."
persons="${1:-100000}"
seconds="${2:-3}"
. bench/kuzu/prepare.sh
export_graph cypher_qps "$persons" "$work/csv"
"$work/venv/bin/python" bench/kuzu/kuzu_qps.py "$work/csv" "$work/kuzu-db" "$seconds" > "$work/kuzu.tsv"
"$bin" --persons "$persons" --seconds "$seconds" > "$work/quiver.tsv"
# Columns: per wall-clock second, then per CPU second (steadier on a shared machine).
printf '%-20s %11s %11s %8s %11s %11s %8s\n' query quiver/s kuzu/s ratio quiver/cpu-s kuzu/cpu-s ratio
join -t $'\t' <(sort "$work/quiver.tsv") <(sort "$work/kuzu.tsv") |
    awk -F'\t' 'function ratio(a, b) { return (b == "n/a" || b == 0) ? "n/a" : sprintf("%.1fx", a / b) }
                 { printf "%-20s %11s %11s %8s %11s %11s %8s\n", $1, $2, $5, ratio($2, $5), $3, $6, ratio($3, $6) }'
