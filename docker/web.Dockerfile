# The site image: web (gunicorn), scoring workers and the reaper run from it (compose.yaml).
# Java is here too: the upload form lints with SANY, and SCORER_BACKEND=local scores in-process.
#
#   docker build -f docker/web.Dockerfile -t sysmobench-web .
#   (bin/build-images builds both images, from a local base when the public one cannot be pulled)
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv default-jre-headless ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY requirements.txt docker/install-requirements /tmp/build/
COPY docker/wheels/ /tmp/build/wheels/
RUN sh /tmp/build/install-requirements /tmp/build/requirements.txt && rm -rf /tmp/build

RUN useradd --system --uid 10002 --user-group --create-home --home-dir /home/app app

WORKDIR /srv/sysmobench
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LANG=C.UTF-8 \
    DEBUG=0 \
    SYSMOBENCH_DATA_DIR=/srv/sysmobench/corpus

COPY manage.py ./
COPY config/ config/
COPY evaluation/ evaluation/
COPY leaderboard/ leaderboard/
COPY templates/ templates/
# The API page renders docs/API.md itself.
COPY docs/API.md docs/API.md
COPY static/ static/
COPY fixtures/ fixtures/
COPY tasks_data/ tasks_data/
# The public corpus (windows, traces, templates, published figures) the site imports.
COPY corpus/ corpus/
# Traces our own harnesses made (contracts with `traces.source: project`), for import_benchmark.
COPY harnesses/ harnesses/
# Static files collected once, served by WhiteNoise; the key only lets settings load here.
RUN python -m compileall -q config evaluation leaderboard \
 && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput -v 0 \
 && python -c "from evaluation.tla.tools import jar_path; print('tla2tools.jar OK:', jar_path())"

# What the site writes at run time, owned by the user it runs as: the upload check's slot locks
# (LINT_SLOT_DIR, default var/lint-slots). The rest of /srv/sysmobench stays root's, read-only
# to it. (A web image without this answered 500 to every submission:
# docs/decisions/0003-no-run-left-behind.md.)
RUN install -d -o app -g app var var/lint-slots

USER app
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", \
     "--access-logfile", "-"]
