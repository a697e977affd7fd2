# Quiver in a container: built with cargo in the first stage, run from a small Debian image as an
# unprivileged user, data in the /data volume, Bolt on 7687 and HTTP (the console, the API) on
# 7474. Every setting can come from the environment (QUIVER_*, as for `quiver serve`).
#
#   docker build -t quiver .
#   docker run -p 7687:7687 -p 7474:7474 -v quiver-data:/data -e QUIVER_AUTH=neo4j/secret-password quiver

FROM rust:1.95-slim-bookworm AS builder
WORKDIR /src
COPY . .
# Caches keep the registry and the build between image builds; the binary is copied out of the
# cache mount so the next stage can take it.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p quiver \
    && install -m 0755 target/release/quiver /usr/local/bin/quiver

FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 quiver \
    && useradd --system --uid 10001 --gid quiver --home-dir /data --shell /usr/sbin/nologin quiver \
    && mkdir /data && chown quiver:quiver /data
COPY --from=builder /usr/local/bin/quiver /usr/local/bin/quiver
USER quiver
WORKDIR /data
VOLUME ["/data"]
EXPOSE 7687 7474
# Listening on every interface needs authentication (QUIVER_AUTH or a config file's [[users]]):
# Quiver refuses to start open to the network otherwise.
ENV QUIVER_BOLT_LISTEN=0.0.0.0:7687 \
    QUIVER_HTTP_LISTEN=0.0.0.0:7474 \
    QUIVER_DATA_DIR=/data
# Ready means open for queries (recovery done; on a cluster member, caught up). bash's /dev/tcp
# asks, so the image needs no HTTP client.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["bash", "-c", "port=${QUIVER_HTTP_LISTEN##*:}; exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET /health/ready HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["/usr/local/bin/quiver"]
CMD ["serve"]
