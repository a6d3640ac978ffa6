# A stand-in for compose's `db` image (postgres:16-bookworm) where no image registry can be
# reached: Debian's own PostgreSQL (15 in bookworm) on the local base, with an entry point that
# does what the official image's does for compose.yaml: POSTGRES_USER, POSTGRES_PASSWORD,
# POSTGRES_DB (and POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD) make the cluster on first
# start in PGDATA (/var/lib/postgresql/data, the named volume), it listens on every address of
# the container, runs as `postgres`, and `pg_isready` (the healthcheck) is on PATH.
#
#   bin/build-images postgres      # sysmobench/postgres-stand-in:latest; then in .env:
#   DB_IMAGE=sysmobench/postgres-stand-in:latest
#
# For trials and machines without a registry only: production uses the official image.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

# No cluster of Debian's own (/var/lib/postgresql/15/main): the entry point makes the one in PGDATA.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/no-main.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(ls -d /usr/lib/postgresql/*/bin | tail -1)" /usr/lib/postgresql/bin \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 700 /var/lib/postgresql/data && chmod 2775 /var/run/postgresql

COPY docker/stand-ins/postgres-entrypoint /usr/local/bin/docker-entrypoint
ENV PATH=/usr/lib/postgresql/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8
VOLUME /var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint"]
CMD ["postgres"]
