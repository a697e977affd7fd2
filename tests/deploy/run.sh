#!/usr/bin/env bash
# The deployment files: the Helm chart (deploy/helm/quiver) rendered with Helm's own template
# engine (the Helm SDK, through the pinned helm-python-sdk package: no helm binary, no cluster),
# compared with the rendered files kept beside it, linted, and validated against Kubernetes'
# schemas (kubernetes-validate ships them; no network); the flags and QUIVER_* variables the
# manifests and the systemd unit name checked against `quiver ... --help`; the rendered
# containers' commands run against the binary on loopback (tests/deploy/test_binary.py); and the
# systemd unit checked by `systemd-analyze verify` where systemd is installed.
#
# Runs on a fresh Debian machine: Python's venv, openssl and strace are installed with apt when
# missing (systemd-analyze, where systemd is not installed, is not: its checks are skipped).
# The venv (about 400 MB, most of it the Helm SDK's library) goes under target/deploy, installed
# once and reused while the pins match. `python tests/deploy/render.py --write` (in that venv)
# rewrites the rendered files after a change to the chart.
set -euo pipefail
cd "$(dirname "$0")/../.."

HELM_PYTHON_SDK="0.2.2"
KUBERNETES_VALIDATE="1.37.0"
PYTEST="8.4.2"

. tests/drivers/apt.sh
if ! command -v python3 >/dev/null; then
    apt_install python3 python3-venv python3-pip
elif ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    apt_install python3-venv python3-pip
fi
command -v openssl >/dev/null || apt_install openssl
# strace: the check that the systemd unit's system call filter lets the server run.
command -v strace >/dev/null || apt_install strace

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
cargo build --locked -q -p quiver
export QUIVER_BIN="$target/debug/quiver"

venv="$target/deploy/python"
pins=("helm-python-sdk==$HELM_PYTHON_SDK" "kubernetes-validate==$KUBERNETES_VALIDATE" "pytest==$PYTEST")
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if ! "$venv/bin/python" - "${pins[@]}" 2>/dev/null <<'EOF'
import sys
from importlib.metadata import version
pins = dict(pin.split("==") for pin in sys.argv[1:])
sys.exit(0 if all(version(p) == v for p, v in pins.items()) else 1)
EOF
then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir "${pins[@]}"
fi

echo "== deployment: Helm chart (Helm SDK $("$venv/bin/python" -c 'import helm_python; print(helm_python.helm_sdk_version())')), kubernetes-validate $KUBERNETES_VALIDATE, systemd unit"
(cd tests/deploy && "$venv/bin/python" -m pytest -q --basetemp "$target/deploy/tmp")
