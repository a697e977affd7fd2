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
n=${1:-100000}
shift $(( $# < 1 ? $# : 1 ))
. "$(dirname "$0")/../vector/venv.sh"
echo "uptime: $(uptime)" >&2
exec "$venv/bin/python" "$root/bench/fulltext/ftbench.py" --quiver "$quiver" --n "$n" "$@"
