#!/usr/bin/env bash
# The whole test suite, runnable on a fresh machine: formatting, lints, unit, property and
# integration tests. Installs what the driver tests need before running them.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --workspace --locked

# ---- Official-driver integration tests (owned by the server crate; see tests/drivers/run.sh) ----
echo "== driver tests: Python neo4j 6.x and 5.28, npm neo4j-driver 6.x"
bash tests/drivers/run.sh

# ---- The web console in a real browser (see tests/browser/run.sh) ----
bash tests/browser/run.sh

# ---- The container image, where a Docker daemon runs (see tests/docker/run.sh) ----
bash tests/docker/run.sh
