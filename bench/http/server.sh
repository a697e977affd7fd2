# Sourced by check.sh and run.sh, which start `quiver serve` with its output going to a log.

# http_address LOG: waits up to ten seconds for the server writing LOG to name its HTTP
# address, then prints it (host:port); where none comes, prints the log on stderr and fails.
http_address() {
    local log=$1 addr
    for _ in $(seq 100); do
        grep -q "http listening on" "$log" && break
        sleep 0.1
    done
    addr=$(sed -n 's/^http listening on //p' "$log")
    if [ -z "$addr" ]; then
        echo "server did not start:" >&2
        cat "$log" >&2
        return 1
    fi
    echo "$addr"
}
