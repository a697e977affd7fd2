#!/usr/bin/env bash
# The container image: builds it from the Dockerfile, starts it, and waits for Docker's own
# healthcheck (GET /health/ready inside the container) to report it healthy, then checks that the
# console answers on the published port. Skipped, saying so, where no
# Docker daemon is reachable (QUIVER_DOCKER_REQUIRED=1 makes that a failure).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v docker >/dev/null || ! docker info >/dev/null 2>&1; then
    if [ "${QUIVER_DOCKER_REQUIRED:-0}" = "1" ]; then
        echo "image test: no Docker daemon" >&2
        exit 1
    fi
    echo "== image test SKIPPED: no Docker daemon reachable"
    exit 0
fi

tag="quiver:test-$$"
name="quiver-test-$$"
cleanup() {
    docker rm -f "$name" >/dev/null 2>&1 || true
    docker image rm "$tag" >/dev/null 2>&1 || true
}
trap cleanup EXIT

echo "== image test: docker build"
docker build --quiet -t "$tag" . >/dev/null
docker run -d --name "$name" -P -e QUIVER_AUTH=neo4j/image-test-password "$tag" >/dev/null

status=starting
for _ in $(seq 1 90); do
    status="$(docker inspect --format '{{.State.Health.Status}}' "$name")"
    [ "$status" = healthy ] && break
    [ "$(docker inspect --format '{{.State.Running}}' "$name")" = true ] || break
    sleep 1
done
if [ "$status" != healthy ]; then
    echo "image test: the container is $status" >&2
    docker logs "$name" >&2 || true
    exit 1
fi
[ "$(docker inspect --format '{{.Config.User}}' "$name")" = quiver ] || {
    echo "image test: the container does not run as the quiver user" >&2
    exit 1
}
http="$(docker port "$name" 7474/tcp | head -n 1)"
curl -fsS -H 'Accept: text/html' "http://$http/" | grep -q '<title>Quiver console</title>'
echo "== image test: healthy, console served on $http"
