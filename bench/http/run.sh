#!/usr/bin/env bash
# Runs the seed's ApacheBench bodies, unchanged, against a fresh release `quiver serve`.
#
#   bench/http/run.sh                      # every body, 100k requests each (create_100: 20k), -c 24
#   N=20000 C=24 bench/http/run.sh fof max # chosen bodies, other sizes
#   DURABILITY=group bench/http/run.sh     # over a commit log in a fresh data directory
#                                          # (buffered, group or sync); default: --in-memory
#   QUIVER=path/to/quiver bench/http/run.sh # a binary already built (default: build it)
#
# The server is the release `quiver serve` binary on free loopback ports, with authentication
# off (`--auth none`). Before the bodies run, `check.sh` proves the API's error paths on the
# same binary (unless CHECK=0), then `schema.json` creates the indexes and `load.json` the data
# the lookups need: Tag nodes (one with tagId 'neo4j'), 10,000 User nodes with `Kaylee83639`
# among them and about 20 FRIENDS per user, and enough nodes that id 10 exists (`pad_ids.json`
# then adds a million unlabelled nodes; see below).
#
# Results go to $OUT (default: target/bench-http): ab's full output per body and a summary
# table. Beside ab's figures the table gives the server's own CPU time over the body's run
# (user + system, from /proc), so requests per CPU-second can be compared across machines
# and stay meaningful when other work shares the cores; and the load average before each
# run, since the figures are only as good as the machine was quiet.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/server.sh"
C=${C:-24}
OUT=${OUT:-$root/target/bench-http}
bodies=("$@")
if [ ${#bodies[@]} -eq 0 ]; then
    bodies=(create_1 create_100 create_label create_plain simple_lookup simple_lookup_property max fof)
fi

if ! command -v ab >/dev/null 2>&1; then
    echo "installing ab (apache2-utils)" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq apache2-utils >/dev/null
fi

quiver=${QUIVER:-}
if [ -z "$quiver" ]; then
    target=${CARGO_TARGET_DIR:-$root/target}
    (cd "$root" && cargo build --release -q -p quiver)
    quiver="$target/release/quiver"
fi
mkdir -p "$OUT"

if [ "${CHECK:-1}" != 0 ]; then
    QUIVER="$quiver" "$here/check.sh"
fi

log="$OUT/server.log"
store=(--in-memory)
if [ -n "${DURABILITY:-}" ]; then
    data=$(mktemp -d)
    store=(--data-dir "$data" --durability "$DURABILITY")
fi
"$quiver" serve --auth none --log warn --http-listen 127.0.0.1:0 --bolt-listen 127.0.0.1:0 \
    "${store[@]}" >"$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true; [ -z "${data:-}" ] || rm -rf "$data"' EXIT
addr=$(http_address "$log") || exit 1
url="http://$addr/db/data/transaction/commit"

post() {
    local reply
    reply=$(curl -sS -H 'Content-Type: application/json' --data-binary "@$1" "http://$addr/db/neo4j/tx/commit")
    case "$reply" in
        *'"errors":[]'*) ;;
        *) echo "loading $1 failed: $reply" >&2; exit 1 ;;
    esac
}
post "$here/schema.json"
post "$here/load.json"
# ab counts a response whose length differs from the first one's as failed ("Length"). The
# create_label and create_plain replies carry new node ids, which would gain a digit at 10^6
# mid-run: a million padding nodes first keep every id at seven digits for the whole run.
for _ in $(seq 10); do post "$here/pad_ids.json"; done

# Each body must answer without errors before it is measured: ab checks lengths, not content.
for body in "${bodies[@]}"; do
    if [[ "$body" == create_* ]]; then continue; fi
    post "$here/$body.json"
done

ticks=$(getconf CLK_TCK)
# The server's user + system CPU time so far, in clock ticks (fields 14 and 15 of its stat line,
# counted after the parenthesised command name).
cpu_ticks() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$server/stat"
}

printf '| body | requests | req/s | p50 ms | p99 ms | failed | non-2xx | server CPU s | req per CPU-s | load before |\n' \
    >"$OUT/summary.md"
printf '|---|---|---|---|---|---|---|---|---|---|\n' >>"$OUT/summary.md"
for body in "${bodies[@]}"; do
    n=${N:-100000}
    if [ "$body" = create_100 ] && [ -z "${N:-}" ]; then n=20000; fi
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    before=$(cpu_ticks)
    # The seed's _run_ab.sh, verbatim but for the port.
    ab -k -c "$C" -n "$n" -p "$here/$body.json" -T application/json -H accept:application/json "$url" \
        >"$OUT/$body.txt" 2>&1
    after=$(cpu_ticks)
    rps=$(awk '/^Requests per second/ {print $4}' "$OUT/$body.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$OUT/$body.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$OUT/$body.txt")
    failed=$(awk '/^Failed requests/ {print $3}' "$OUT/$body.txt")
    non2xx=$(awk '/^Non-2xx responses/ {print $3}' "$OUT/$body.txt")
    cpu=$(awk -v t="$((after - before))" -v hz="$ticks" 'BEGIN { printf "%.2f", t / hz }')
    per_cpu=$(awk -v n="$n" -v t="$((after - before))" -v hz="$ticks" \
        'BEGIN { if (t > 0) printf "%.0f", n * hz / t; else print "-" }')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$body" "$n" "$rps" "$p50" "$p99" \
        "$failed" "${non2xx:-0}" "$cpu" "$per_cpu" "$load" >>"$OUT/summary.md"
done
cat "$OUT/summary.md"
