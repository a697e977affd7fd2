#!/usr/bin/env bash
# Official-driver integration tests: builds `quiver`, installs the Python driver (6.x and 5.28)
# and the JavaScript driver (6.x) into target/drivers, and runs their tests against real servers.
set -euo pipefail
cd "$(dirname "$0")/../.."

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
cargo build --locked -p quiver
export QUIVER_BIN="$target/debug/quiver"
work="$target/drivers"
mkdir -p "$work"

run_python() {
    local name="$1" spec="$2" expect="$3"
    local venv="$work/python-$name"
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$spec" "pytest>=8,<9"
    echo "== Python driver $name"
    (cd tests/drivers/python && QUIVER_EXPECT_NEO4J="$expect" "$venv/bin/python" -m pytest -q)
}

run_python 6 "neo4j>=6,<7" "6."
run_python 5.28 "neo4j>=5.28,<5.29" "5.28"

echo "== JavaScript driver 6"
(cd tests/drivers/js && npm install --silent --no-audit --no-fund && node --test)
