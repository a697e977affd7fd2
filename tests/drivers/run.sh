#!/usr/bin/env bash
# Official-driver integration tests: builds `quiver`, installs the pinned Python drivers (6.x and
# 5.28) and the pinned JavaScript driver (6.x) into target/drivers, and runs their tests against
# real servers started on ephemeral ports, then the libraries people use with Neo4j, each pinned
# in a venv of its own: LangChain's Neo4j integration with neo4j-graphrag (one venv, since
# langchain-neo4j depends on neo4j-graphrag; QUIVER_LIBRARIES=0 leaves them out), neomodel's
# search features (QUIVER_NEOMODEL=0 leaves them out) and Neo4j's Graph Data Science client
# (QUIVER_GDS_CLIENT=0 leaves it out).
#
# Runs on a fresh Debian machine: Python's venv and Node/npm are installed with apt when missing.
# Drivers already installed at the pinned versions are reused, so a second run needs no network.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON_DRIVERS=("6.4.1" "5.28.8")
PYTEST_SPEC="pytest>=8,<9"
# The independent implementations the Graph Data Science tests compare against (test_gds.py).
NETWORKX="3.4.2"
IGRAPH="0.11.8"
LANGCHAIN_NEO4J="0.11.0"
NEO4J_GRAPHRAG="1.22.0"
NEOMODEL="7.0.0"
GRAPHDATASCIENCE="1.12"
NODE_MAJOR_MIN=18

. tests/drivers/apt.sh

# Python 3 with venv and ensurepip (Debian splits these out of python3).
if ! command -v python3 >/dev/null; then
    apt_install python3 python3-venv python3-pip
elif ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    apt_install python3-venv python3-pip
fi

# Node.js with npm, new enough for the driver and `node --test`.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    apt_install nodejs npm
fi
if [ "$(node_major)" -lt "$NODE_MAJOR_MIN" ]; then
    echo "Node.js $NODE_MAJOR_MIN or newer is needed; found $(node --version)" >&2
    exit 1
fi

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
cargo build --locked -p quiver
export QUIVER_BIN="$target/debug/quiver"
work="$target/drivers"
mkdir -p "$work"
# A CA, server and client certificates for the TLS tests, made fresh for the run.
export QUIVER_TEST_CERTS="$work/certs"
cargo run --locked -q -p quiver-server --example test_certs -- "$QUIVER_TEST_CERTS" >/dev/null

# The venv $work/python-$1, holding the pinned packages that follow it (`name==version`) and
# pytest: made and installed once, reused while every pin matches. Prints the venv's path.
pinned_venv() {
    local venv="$work/python-$1"
    shift
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv" >&2
    fi
    if ! "$venv/bin/python" - "$@" 2>/dev/null <<'EOF'
import sys
from importlib.metadata import version
import pytest  # noqa: F401
pins = dict(pin.split("==") for pin in sys.argv[1:])
sys.exit(0 if all(version(p) == v for p, v in pins.items()) else 1)
EOF
    then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir "$@" "$PYTEST_SPEC" >&2
    fi
    echo "$venv"
}

run_python() {
    local version="$1" venv
    venv=$(pinned_venv "neo4j-$version" \
        "neo4j==$version" "networkx==$NETWORKX" "igraph==$IGRAPH")
    echo "== Python driver neo4j $version"
    (cd tests/drivers/python && QUIVER_EXPECT_NEO4J="$version" "$venv/bin/python" -m pytest -q -p no:cacheprovider)
}

for version in "${PYTHON_DRIVERS[@]}"; do
    run_python "$version"
done

# LangChain's Neo4jGraph and Neo4jVector (tests/drivers/python/test_langchain.py) and
# neo4j-graphrag's retrievers, schema reading and knowledge-graph pipeline (tests/drivers/python/test_vector.py,
# test_graphrag*.py), in one venv:
# langchain-neo4j depends on neo4j-graphrag, and the two pins agree with each other and with the
# driver's. The driver venvs skip these tests. The install takes minutes and about 400 MB the
# first time and is reused after; QUIVER_LIBRARIES=0 skips it and the tests.
if [ "${QUIVER_LIBRARIES:-1}" = "1" ]; then
    venv=$(pinned_venv "libraries-$LANGCHAIN_NEO4J-$NEO4J_GRAPHRAG" \
        "langchain-neo4j==$LANGCHAIN_NEO4J" "neo4j-graphrag==$NEO4J_GRAPHRAG" \
        "neo4j==${PYTHON_DRIVERS[0]}")
    echo "== LangChain langchain-neo4j $LANGCHAIN_NEO4J, neo4j-graphrag $NEO4J_GRAPHRAG"
    (cd tests/drivers/python && QUIVER_EXPECT_LIBRARIES=1 "$venv/bin/python" -m pytest -q \
        -p no:cacheprovider test_langchain*.py test_vector.py test_graphrag*.py)
fi

# neomodel's full-text and vector index features and label installation (tests/drivers/python/test_neomodel*.py,
# skipped in the driver venvs): neomodel pins its own driver version, so it has a venv of its
# own. Its tests take seconds; QUIVER_NEOMODEL=0 skips them (and the install).
if [ "${QUIVER_NEOMODEL:-1}" = "1" ]; then
    venv=$(pinned_venv "neomodel-$NEOMODEL" "neomodel==$NEOMODEL")
    echo "== neomodel $NEOMODEL"
    (cd tests/drivers/python && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_neomodel*.py)
fi

# Neo4j's Graph Data Science client (tests/drivers/python/test_gds_client.py, skipped in the
# other venvs): it pins its own driver (5.x) and brings pandas, so it has a venv of its own.
# About 150 MB the first time, reused after; QUIVER_GDS_CLIENT=0 skips it (and the install).
if [ "${QUIVER_GDS_CLIENT:-1}" = "1" ]; then
    venv=$(pinned_venv "graphdatascience-$GRAPHDATASCIENCE" "graphdatascience==$GRAPHDATASCIENCE")
    echo "== graphdatascience $GRAPHDATASCIENCE"
    (cd tests/drivers/python && QUIVER_EXPECT_GDS_CLIENT=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider test_gds_client.py)
fi

# Opt-in: the Python driver 4.3, which offers Bolt 4.3–4.0 only, in a venv of its own.
if [ "${QUIVER_DRIVERS_BOLT4:-0}" = "1" ]; then
    venv=$(pinned_venv "neo4j-4.3.9" "neo4j==4.3.9")
    echo "== Python driver neo4j 4.3.9 (Bolt 4.3)"
    (cd tests/drivers/python-bolt4 && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
fi

echo "== JavaScript driver neo4j-driver $(node -p 'require("./tests/drivers/js/package.json").dependencies["neo4j-driver"]')"
(
    cd tests/drivers/js
    # The lock file pins every package; reuse an installed tree that matches it.
    if ! node -e '
        const lock = require("./package-lock.json").packages["node_modules/neo4j-driver"].version
        const have = require("./node_modules/neo4j-driver/package.json").version
        process.exit(lock === have ? 0 : 1)' 2>/dev/null; then
        npm ci --silent --no-audit --no-fund
    fi
    # Node reads extra CAs once, at start: bolt+s (the system's CAs) then trusts the test CA.
    NODE_EXTRA_CA_CERTS="$QUIVER_TEST_CERTS/ca.pem" node --test
)
