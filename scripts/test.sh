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

# The test binaries (each links the whole tree: several GB together) serve no later step. Where
# the disk is short, as on a CI machine (.ci/run sets QUIVER_PRUNE_TEST_BINARIES=1), they go
# before the driver tests install their packages; a later `cargo test` links them again.
if [ "${QUIVER_PRUNE_TEST_BINARIES:-0}" = 1 ]; then
    find "${CARGO_TARGET_DIR:-target}/debug/deps" -maxdepth 1 -type f -executable ! -name '*.so' -delete
fi

# ---- Official-driver integration tests (owned by the server crate; see tests/drivers/run.sh) ----
echo "== driver tests: Python neo4j 6.x and 5.28, npm neo4j-driver 6.x"
bash tests/drivers/run.sh

# ---- The web console in a real browser (see tests/browser/run.sh) ----
bash tests/browser/run.sh

# ---- The Helm chart and systemd unit, and what they rely on the binary for (see tests/deploy/run.sh) ----
bash tests/deploy/run.sh

# ---- The container image, where a Docker daemon runs (see tests/docker/run.sh) ----
bash tests/docker/run.sh
