"""Putting runs on the `evaluation` queue, and where a queued run stands.

`enqueue_run(run)` is the one seam views, the API, the reaper and tests go through. The job id is
derived from the run and its attempt (`run-<pk>-<attempt>`) so the reaper can find the job of a
RUNNING run without storing anything extra. When Redis does not answer (or RQ_FORCE_INLINE is
set) the job runs in a background thread of this process: a local demo convenience, logged as
such, never how production scores.

A rescoring (a run with `rescore_of`, `leaderboard/releases/rescoring.py`) goes on
`evaluation-rescore`; a worker started as `rqworker evaluation evaluation-rescore` takes from it
only when `evaluation` is empty, so rescoring a whole release never delays a submission.
"""

from __future__ import annotations

import logging
import threading
from importlib import import_module

import django_rq
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from redis import Redis
from redis.exceptions import RedisError

from leaderboard.models import Run

QUEUE_NAME = "evaluation"
RESCORE_QUEUE_NAME = "evaluation-rescore"
# rq imports the job by this path in the worker process.
JOB_PATH = "leaderboard.scoring.jobs.evaluate_run"
PING_TIMEOUT_SECONDS = 0.5

log = logging.getLogger(__name__)


def job_id(run_id: int, attempt: int) -> str:
    """The rq job id of a run's `attempt`-th claim (attempts count claims, starting at 1)."""
    return f"run-{run_id}-{attempt}"


def redis_connection() -> Redis:
    return django_rq.get_connection(QUEUE_NAME)


def redis_answers() -> bool:
    """A quick PING with a short socket timeout, so a missing Redis costs half a second."""
    url: str = settings.RQ_QUEUES[QUEUE_NAME]["URL"]
    try:
        client = Redis.from_url(
            url, socket_timeout=PING_TIMEOUT_SECONDS, socket_connect_timeout=PING_TIMEOUT_SECONDS
        )
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (RedisError, OSError, ValueError):
        return False


def queue_for(run: Run) -> str:
    # A configuration without the rescore queue (an older one, a test's) keeps one queue.
    if run.rescore_of_id is not None and RESCORE_QUEUE_NAME in settings.RQ_QUEUES:
        return RESCORE_QUEUE_NAME
    return QUEUE_NAME


def enqueue_run(run: Run) -> None:
    """Queue `run` for scoring once the current transaction commits (immediately outside one)."""
    run_id, attempt, name = run.pk, run.attempts + 1, queue_for(run)
    transaction.on_commit(lambda: _dispatch(run_id, attempt, name))


def _dispatch(run_id: int, attempt: int, name: str = QUEUE_NAME) -> None:
    if not settings.RQ_FORCE_INLINE and redis_answers():
        queue = django_rq.get_queue(name, commit_mode="auto")
        queue.enqueue(JOB_PATH, run_id, job_id=job_id(run_id, attempt))
        return
    why = "RQ_FORCE_INLINE is set" if settings.RQ_FORCE_INLINE else "Redis does not answer"
    log.warning(
        "run %s: %s, scoring in a background thread of this process (demo only)", run_id, why
    )
    threading.Thread(target=_run_inline, args=(run_id,), name=f"score-run-{run_id}").start()


def _run_inline(run_id: int) -> None:
    # By the dotted path rq uses, so the job can queue a run again (jobs imports this module).
    module, name = JOB_PATH.rsplit(".", 1)
    try:
        getattr(import_module(module), name)(run_id)
    finally:
        # A thread's own connection is never closed by the request cycle.
        connection.close()


def queue_position(run: Run) -> int | None:
    """1 for the next run a worker will take; None when the run is not waiting."""
    if run.status != Run.Status.QUEUED:
        return None
    ahead = Q(created_at__lt=run.created_at) | Q(created_at=run.created_at, pk__lt=run.pk)
    submissions = Run.objects.queued().filter(rescore_of__isnull=True)
    if queue_for(run) != RESCORE_QUEUE_NAME:
        return submissions.filter(ahead).count() + 1
    rescores = Run.objects.queued().filter(ahead, rescore_of__isnull=False)
    return submissions.count() + rescores.count() + 1
