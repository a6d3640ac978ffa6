# The scorer image: one container scores one run (`python -m evaluation score ...`).
# Java runtime, the pinned tla2tools.jar (checked by sha256 while building), our TLA+ library
# modules and evaluation/, run as a non-root user. The worker starts it with no network, a
# read-only root file system and a tmpfs on /tmp (evaluation/backends/container.py).
#
#   bin/build-images scorer        (passes SCORER_CODE, the digest of evaluation/, and
#                                   SCORER_VERSION; a build without them fails, see below)
#   docker build --build-arg SCORER_CODE="$(python -m evaluation.backends.stamp)" \
#     -f docker/scorer.Dockerfile -t sysmobench-scorer .
#   docker build --build-arg BASE_IMAGE=sysmobench/bookworm-base -f docker/scorer.Dockerfile ...
#     (a base made by bin/make-base-image where debian:bookworm-slim cannot be pulled)
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv default-jre-headless ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY requirements-scorer.txt docker/install-requirements /tmp/build/
COPY docker/wheels/ /tmp/build/wheels/
RUN sh /tmp/build/install-requirements /tmp/build/requirements-scorer.txt && rm -rf /tmp/build

RUN useradd --system --uid 10001 --user-group --home-dir /tmp --shell /usr/sbin/nologin scorer

WORKDIR /opt/sysmobench
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    LANG=C.UTF-8 \
    SYSMOBENCH_TASKS_DIR=/opt/sysmobench/tasks_data \
    SYSMOBENCH_CACHE_DIR=/opt/sysmobench/cache \
    SYSMOBENCH_TOOL_VERSIONS=/opt/sysmobench/tool-versions.json

COPY evaluation/ evaluation/
COPY tasks_data/ tasks_data/
# Made once here, read-only at run time: the jar check (fails the build on a wrong jar), the
# tool banners of the fingerprint (two JVM starts saved per run) and the AppCDS archives.
RUN python -m compileall -q evaluation \
 && python -m evaluation.backends.imagesetup "$SYSMOBENCH_TOOL_VERSIONS" \
 && chmod -R a+rX,go-w /opt/sysmobench

# Which code the image holds (evaluation/backends/stamp.py): the container backend refuses an
# image whose label is not the digest of the worker's own evaluation/, so a stale image is named
# as such instead of failing every run obscurely. bin/build-images passes both; the build fails
# when the digest of the copied package is not the one passed, so the label cannot lie.
ARG SCORER_CODE=""
ARG SCORER_VERSION=""
RUN test "$(python -m evaluation.backends.stamp)" = "$SCORER_CODE" \
 || { echo "SCORER_CODE is not the digest of the copied evaluation/ (bin/build-images passes it)" >&2; exit 1; }
LABEL org.sysmobench.scorer.code="$SCORER_CODE" \
      org.sysmobench.scorer.version="$SCORER_VERSION"

USER 10001:10001
ENTRYPOINT ["python", "-m", "evaluation"]
CMD ["--help"]
