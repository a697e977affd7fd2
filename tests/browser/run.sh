#!/usr/bin/env bash
# The web console in headless Chromium (Debian's `chromium`, driven by puppeteer-core) against
# `quiver serve`. Installs Chromium with apt when missing; where apt is not available the tests
# are skipped, saying so, except on CI (CI set), where a missing browser fails the run.
# Screenshots and the speed figures land in target/browser/.
set -euo pipefail
cd "$(dirname "$0")/../.."

chromium_bin() {
    command -v chromium || command -v chromium-browser || true
}

if [ -z "$(chromium_bin)" ]; then
    if command -v apt-get >/dev/null; then
        . tests/drivers/apt.sh
        apt_install chromium
    elif [ -n "${CI:-}" ]; then
        echo "browser tests: no chromium and no apt-get to install it" >&2
        exit 1
    else
        echo "== browser tests SKIPPED: no chromium, and no apt-get to install it"
        exit 0
    fi
fi
export QUIVER_CHROMIUM="$(chromium_bin)"

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
cargo build --locked -q -p quiver
export QUIVER_BIN="$target/debug/quiver"
export QUIVER_BROWSER_ARTEFACTS="$target/browser"

echo "== browser tests: the console in $("$QUIVER_CHROMIUM" --version 2>/dev/null || echo chromium)"
cd tests/browser
if ! node -e '
    const lock = require("./package-lock.json").packages["node_modules/puppeteer-core"].version
    const have = require("./node_modules/puppeteer-core/package.json").version
    process.exit(lock === have ? 0 : 1)' 2>/dev/null; then
    npm ci --silent --no-audit --no-fund
fi
node --test
