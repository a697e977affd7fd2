# Sourced by run.sh and whole_graph.sh, from the repository's root: sets `work`, the Kuzu
# benchmarks' directory under target/, and makes its venv with kuzu (PyPI, pinned) when missing.
work="target/kuzu-bench"
mkdir -p "$work"
if [ ! -x "$work/venv/bin/python" ]; then
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet kuzu==0.11.3
fi

# export_graph EXAMPLE PERSONS DIR: builds the engine's example EXAMPLE (release), sets `bin` to
# it, and has it write the social graph it generates for PERSONS people as CSV into DIR.
export_graph() {
    cargo build --release --quiet -p quiver-engine --example "$1"
    bin="${CARGO_TARGET_DIR:-target}/release/examples/$1"
    "$bin" --persons "$2" --export "$3" >&2
}
