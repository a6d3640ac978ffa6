# A stand-in for compose's `redis` image (redis:7-bookworm) where no image registry can be
# reached: Debian's own redis-server (7.0 in bookworm) on the local base. As in the official
# image, `redis-server ARGS` (compose.yaml passes `--appendonly yes`) runs as the `redis` user in
# /data (the named volume) with no configuration file, listening on every address of the
# container with protected mode off (the official image builds it so); `redis-cli` (the
# healthcheck) is on PATH.
#
#   bin/build-images redis         # sysmobench/redis-stand-in:latest; then in .env:
#   REDIS_IMAGE=sysmobench/redis-stand-in:latest
#
# For trials and machines without a registry only: production uses the official image.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data

COPY docker/stand-ins/redis-entrypoint /usr/local/bin/docker-entrypoint
ENV LANG=C.UTF-8
VOLUME /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint"]
CMD ["redis-server"]
