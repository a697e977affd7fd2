#!/usr/bin/env bash
# End-to-end checks of the HTTP API through the real binary: `quiver serve` in memory on free
# loopback ports, with Basic authentication on and small limits, spoken to with curl and raw
# sockets. Covers what only the assembled server shows: the 401 challenge, 413, the body and
# header read deadlines, the operations endpoints and `/stats`, next to the API's own answers
# (discovery, the seed's bodies on the legacy path, explicit transactions, bookmarks, Neo4j-shaped
# errors). Prints one line per check and `N passed, N failed`; exits non-zero on any failure.
#
#   bench/http/check.sh                     # builds the release binary first
#   QUIVER=path/to/quiver bench/http/check.sh
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/server.sh"
if [ -z "${QUIVER:-}" ]; then
    target=${CARGO_TARGET_DIR:-$root/target}
    (cd "$root" && cargo build --release -q -p quiver) || exit 1
    QUIVER="$target/release/quiver"
fi

work=$(mktemp -d)
log="$work/server.log"
"$QUIVER" serve --in-memory --auth neo4j/secret-password --log warn \
    --http-listen 127.0.0.1:0 --bolt-listen 127.0.0.1:0 \
    --http-body-bytes-max 4096 --http-body-read-timeout-ms 1000 \
    --http-header-read-timeout-ms 1000 --auth-failure-delay-max-ms 50 >"$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
addr=$(http_address "$log") || exit 1
host=${addr%:*}
port=${addr##*:}
base="http://$addr"

passed=0
failed=0
check() { # name, then a command that must succeed
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name" >&2
        echo "     status: ${status:-} headers/body: $(head -c 600 "$work/reply")" >&2
    fi
}

# request METHOD PATH BODY [curl options...]: sets $status; headers and body in $work/reply.
# Accept is application/json unless $ACCEPT says otherwise.
request() {
    local method=$1 path=$2 body=${3:-}
    shift 3 2>/dev/null || shift $#
    local data=()
    [ -n "$body" ] && data=(--data-binary "$body")
    status=$(curl -sS -o "$work/reply" -D "$work/head" -w '%{http_code}' -X "$method" \
        -H 'Content-Type: application/json' -H "Accept: ${ACCEPT:-application/json}" \
        "${data[@]}" "$@" "$base$path")
    cat "$work/head" "$work/reply" >"$work/both"
    mv "$work/both" "$work/reply"
}
has() { grep -qiF -- "$1" "$work/reply"; }
is() { [ "$status" = "$1" ]; }
auth=(-u neo4j:secret-password)

request GET / ""
check "discovery needs no credentials and names the endpoints" \
    eval 'is 200 && has "\"transaction\":\"http://$addr/db/{databaseName}/tx\"" && has "\"bolt_direct\""'

request POST /db/neo4j/tx/commit '{"statements":[{"statement":"RETURN 1"}]}'
check "no credentials: 401 with a Basic challenge" \
    eval 'is 401 && has "WWW-Authenticate: Basic" && has "Neo.ClientError.Security.Unauthorized"'

request POST /db/neo4j/tx/commit '{"statements":[{"statement":"RETURN 1"}]}' -u neo4j:wrong
check "wrong password: 401 with a Basic challenge" \
    eval 'is 401 && has "WWW-Authenticate: Basic"'

request POST /db/data/transaction/commit "$(cat "$here/create_plain.json")" "${auth[@]}"
check "seed body on the legacy path" \
    eval 'is 200 && has "\"columns\":[\"_0\",\"_1\",\"_2\"]" && has "\"errors\":[]"'

request POST /db/neo4j/tx/commit "$(cat "$here/create_label.json")" "${auth[@]}"
check "seed body on the Neo4j 5 path" eval 'is 200 && has "\"errors\":[]"'

big=$(printf '{"statements":[{"statement":"RETURN 1","parameters":{"pad":"%05000d"}}]}' 0)
request POST /db/neo4j/tx/commit "$big" "${auth[@]}"
check "a body over the limit: 413" eval 'is 413 && has "Neo.ClientError.Request.Invalid"'

request POST /db/neo4j/tx/commit '{"statements": [' "${auth[@]}"
check "malformed JSON: InvalidFormat (200, as Neo4j's transactional API answers)" \
    eval 'is 200 && has "Neo.ClientError.Request.InvalidFormat" && has "\"results\":[]"'

request POST /db/neo4j/tx/commit '{"statements":[{"statement":42}]}' "${auth[@]}"
check "a statement of the wrong type: InvalidFormat" eval 'has "Neo.ClientError.Request.InvalidFormat"'

request POST /db/nowhere/tx/commit '{"statements":[{"statement":"RETURN 1"}]}' "${auth[@]}"
check "unknown database: 404 DatabaseNotFound" \
    eval 'is 404 && has "Neo.ClientError.Database.DatabaseNotFound"'

request POST /db/neo4j/query/v2 '{"statement": ' "${auth[@]}"
check "Query API, malformed JSON: 400" eval 'is 400 && has "Neo.ClientError.Request"'

request POST /db/nowhere/query/v2 '{"statement":"RETURN 1"}' "${auth[@]}"
check "Query API, unknown database: 404" eval 'is 404 && has "DatabaseNotFound"'

request POST /db/neo4j/query/v2 '{"statement":"RETURN 1 AS one"}' "${auth[@]}"
check "Query API: 202 with the values" eval 'is 202 && has "\"values\":[[1]]"'

ACCEPT=text/html request POST /db/neo4j/tx/commit '{"statements":[{"statement":"RETURN 1"}]}' "${auth[@]}"
check "Accept without JSON: 406" eval 'is 406 && has "Neo.ClientError.Request.Invalid"'
ACCEPT='text/html, */*;q=0.8' request POST /db/neo4j/tx/commit '{"statements":[{"statement":"RETURN 1"}]}' "${auth[@]}"
check "Accept with a wildcard: JSON" eval 'is 200 && has "content-type: application/json"'

request POST /db/neo4j/tx '{"statements":[{"statement":"CREATE (:Checked {n: 1})"}]}' "${auth[@]}"
location=$(sed -n 's/^[Ll]ocation: *\([^[:space:]]*\).*/\1/p' "$work/reply")
check "open a transaction: 201 with a Location" eval 'is 201 && [ -n "$location" ]'
request POST "${location#"$base"}/commit" '{"statements":[]}' "${auth[@]}"
bookmark=$(grep -o '"lastBookmarks":\["[^"]*"' "$work/reply" | sed 's/.*\["//; s/"$//')
check "commit it: 200 with a bookmark" eval 'is 200 && [ -n "$bookmark" ]'
request DELETE "${location#"$base"}" "" "${auth[@]}"
check "a committed transaction is gone: 404" \
    eval 'is 404 && has "Neo.ClientError.Transaction.TransactionNotFound"'

request POST /db/neo4j/tx/commit '{"statements":[{"statement":"MATCH (n:Checked) RETURN count(n)"}]}' \
    "${auth[@]}" -H "bookmarks: [\"$bookmark\"]"
check "a read after the bookmark sees the commit" eval 'is 200 && has "\"row\":[1]"'

request POST /db/neo4j/tx/commit '{"statements":[{"statement":"RETURN 1"}]}' "${auth[@]}" \
    -H 'bookmarks: ["FB:unknown"]'
check "a foreign bookmark: InvalidBookmark" eval 'has "Neo.ClientError.Transaction.InvalidBookmark"'

request GET /health/live ""
check "/health/live" eval 'is 200'
request GET /health/ready ""
check "/health/ready once serving" eval 'is 200 && has "\"status\":\"ready\""'
request GET /metrics ""
check "/metrics in the Prometheus text format" eval 'is 200 && has "# TYPE"'

# A client that declares a body and never sends it is answered 408 at the body deadline and
# closed; one that dribbles its headers is closed at the header deadline.
slow_body() {
    exec 3<>"/dev/tcp/$host/$port" || return 1
    printf 'POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic bmVvNGo6c2VjcmV0\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sta' "$addr" >&3
    local answer
    answer=$(timeout 5 cat <&3)
    exec 3<&-
    echo "$answer" >"$work/reply"
    grep -q "^HTTP/1.1 408" "$work/reply"
}
check "a body that stops coming: 408 at the deadline" slow_body

slow_headers() {
    exec 3<>"/dev/tcp/$host/$port" || return 1
    printf 'POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: ' >&3
    local started=$SECONDS
    timeout 5 cat <&3 >"$work/reply"
    local code=$?
    exec 3<&-
    # `cat` ends (code 0) when the server closes; 124 would mean it held the socket 5 s.
    [ "$code" -eq 0 ] && [ $((SECONDS - started)) -le 3 ]
}
check "headers that dribble: closed at the deadline" slow_headers

request POST /db/neo4j/tx/commit '{"statements":[{"statement":"RETURN 1"}]}' "${auth[@]}"
check "the server keeps serving after all that" eval 'is 200 && has "\"errors\":[]"'

request GET /stats ""
check "/stats counts HTTP and Bolt connections and requests" \
    eval 'is 200 && has "\"accepted_total\"" && has "\"in_flight\"" && has "\"active\"" && has "\"bolt\"" && has "\"http\""'
accepted=$(grep -o '"http":{[^}]*}' "$work/reply" | grep -o '"accepted_total":[0-9]*' | cut -d: -f2)
check "/stats: HTTP connections accepted so far are counted" eval '[ "${accepted:-0}" -ge 20 ]'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
