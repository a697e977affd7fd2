#!/usr/bin/env bash
# The LDBC SNB Interactive v1 reads side by side, Quiver against Kuzu on the same generated data:
# the answers of every curated complex and short read compared, and the median time per read
# of each kind on both.
#
#   bench/ldbc/run.sh [SF] [ROUNDS] [N]     # SF: 0.1 (default), 1, 3, 10; ROUNDS: Kuzu's timed
#                                           # rounds (3) over each kind's first N parameters (all)
#
# Builds the release binary, has `quiver lab --workload ldbc-snb` generate the data (once, under
# target/ldbc-snb/sf<SF>/data), load it and write Quiver's answers; loads the same CSV files into
# Kuzu (PyPI, pinned, in bench/kuzu's venv), writes Kuzu's answers, compares them
# (bench/ldbc/compare.py: exits non-zero on a difference) and times each kind in Kuzu; prints
# both tables. QUIVER_SKIP_BUILD=1 uses the binary already built.
set -euo pipefail
cd "$(dirname "$0")/../.."
sf="${1:-0.1}"
rounds="${2:-3}"
per_kind="${3:-}"
. bench/kuzu/prepare.sh
py="$work/venv/bin/python"
dir="${CARGO_TARGET_DIR:-target}/ldbc-snb/sf$sf"
mkdir -p "$dir"
if [ -z "${QUIVER_SKIP_BUILD:-}" ]; then
    cargo build --release --quiet -p quiver
fi
quiver="${CARGO_TARGET_DIR:-target}/release/quiver"

echo "# Quiver: generate (when missing), load (when missing), answers" >&2
"$quiver" lab --workload ldbc-snb --scale-factor "$sf" --snb-dir "$dir" \
    --snb-answers "$dir/quiver-answers.jsonl" >&2

# Kuzu's database is made again when the data is newer than it.
if [ ! -e "$dir/kuzu-loaded" ] || [ "$dir/data/manifest.json" -nt "$dir/kuzu-loaded" ]; then
    rm -f "$dir/kuzu-loaded"
    "$py" bench/ldbc/kuzu_snb.py load "$dir/data" "$dir/kuzu-db"
    touch "$dir/kuzu-loaded"
fi
echo "# Kuzu: answers" >&2
"$py" bench/ldbc/kuzu_snb.py answers "$dir/data" "$dir/kuzu-db" "$dir/kuzu-answers.jsonl"

echo
echo "## answers, SF$sf"
status=0
"$py" bench/ldbc/compare.py "$dir/quiver-answers.jsonl" "$dir/kuzu-answers.jsonl" quiver kuzu || status=$?

echo "# Kuzu: $rounds timed rounds of each kind's ${per_kind:-every} parameters" >&2
"$py" bench/ldbc/kuzu_snb.py timed "$dir/data" "$dir/kuzu-db" "$rounds" $per_kind > "$dir/kuzu-timed.tsv"
echo
echo "## timings, SF$sf"
"$py" bench/ldbc/compare.py --timings "$dir/quiver-answers.jsonl" "$dir/kuzu-answers.jsonl" "$dir/kuzu-timed.tsv"
exit "$status"
