#!/usr/bin/env bash
# The study's whole-graph queries, Quiver's engine against Kuzu on the same generated social
# graph, in the same run: median wall and CPU milliseconds per query, the ratios Quiver / Kuzu,
# and whether the two results are equal.
#
#   bench/kuzu/whole_graph.sh [persons] [runs] [query]
#
# Installs kuzu (PyPI, pinned) into a venv under target/, exports the graph Quiver generates
# (crates/engine/benches/follows.rs) as CSV, loads it into Kuzu with COPY, times Kuzu, then
# loads it into Quiver through the storage API and times Quiver. Exits non-zero when a result
# differs.
set -euo pipefail
cd "$(dirname "$0")/../.."
persons="${1:-100000}"
runs="${2:-3}"
only="${3:-}"
. bench/kuzu/prepare.sh
export_graph whole_graph "$persons" "$work/follows-csv"
"$work/venv/bin/python" bench/kuzu/whole_graph.py "$work/follows-csv" "$work/kuzu-follows-db" "$runs" $only \
    > "$work/kuzu-whole.tsv"
"$bin" --persons "$persons" --runs "$runs" ${only:+--only "$only"} > "$work/quiver-whole.tsv"
printf '%-28s %10s %10s %8s %10s %10s %8s  %s\n' query quiver-ms kuzu-ms ratio quiver-cpu kuzu-cpu ratio result
# join needs both sides sorted on the name; the query order is restored from Quiver's file.
join -t $'\t' <(sort "$work/quiver-whole.tsv") <(sort "$work/kuzu-whole.tsv") > "$work/joined.tsv"
status=0
while IFS=$'\t' read -r name _; do
    grep -P "^$name\t" "$work/joined.tsv"
done < "$work/quiver-whole.tsv" |
    awk -F'\t' 'function ratio(a, b) { return (b == "n/a" || b == 0) ? "n/a" : sprintf("%.2fx", a / b) }
                { same = ($4 == $7) ? "equal" : "DIFFERENT: quiver " $4 " kuzu " $7
                  if ($4 != $7) bad = 1
                  printf "%-28s %10s %10s %8s %10s %10s %8s  %s\n", $1, $2, $5, ratio($2, $5), $3, $6, ratio($3, $6), same }
                END { exit bad }' || status=$?
exit "$status"
