"""Putting runs on the `evaluation` queue, and where a queued run stands.

`enqueue_run(run)` is the one seam views, the API, the reaper and tests go through. The job id is
derived from the run and its attempt (`run-<pk>-<attempt>`) so the reaper can find the job of a
RUNNING run without storing anything extra. With RQ_FORCE_INLINE set (the demo sets it when it
finds no Redis) the job runs in a background thread of this process: a local demo convenience,
logged as such, never how production scores. Otherwise a run whose enqueue fails (Redis down or
gone mid-call) stays QUEUED with nothing lost: the reaper gives it its job once Redis answers.

Three queues, in the order a worker started as `rqworker evaluation evaluation-bulk
evaluation-rescore` takes from them (rq takes from the first while it has jobs): what a user
submitted (`evaluation`), what an operator loads in bulk (`evaluation-bulk`: the archive, the
demo's sample, runs without a submitter), and rescorings of a release (`evaluation-rescore`: runs
with `rescore_of`, `leaderboard/releases/rescoring.py`). A newcomer's first run never waits
behind the demo's loads, and rescoring a whole release never delays either; the queue position
counts the same way.
"""

from __future__ import annotations

import logging
import statistics
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
BULK_QUEUE_NAME = "evaluation-bulk"
RESCORE_QUEUE_NAME = "evaluation-rescore"
# How many recently scored runs the wait estimate takes the median of.
RECENT_RUNS = 20
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


def is_bulk(run: Run) -> bool:
    """An operator's load (no submitter): it yields to every submission."""
    return run.submitter_id is None


def queue_for(run: Run) -> str:
    # A configuration without these queues (an older one, a test's) keeps one queue for all.
    if run.rescore_of_id is not None and RESCORE_QUEUE_NAME in settings.RQ_QUEUES:
        return RESCORE_QUEUE_NAME
    if is_bulk(run) and BULK_QUEUE_NAME in settings.RQ_QUEUES:
        return BULK_QUEUE_NAME
    return QUEUE_NAME


def enqueue_run(run: Run) -> None:
    """Queue `run` for scoring once the current transaction commits (immediately outside one)."""
    run_id, attempt, name = run.pk, run.attempts + 1, queue_for(run)
    transaction.on_commit(lambda: _dispatch(run_id, attempt, name))


def _dispatch(run_id: int, attempt: int, name: str = QUEUE_NAME) -> None:
    if settings.RQ_FORCE_INLINE:
        log.warning(
            "run %s: RQ_FORCE_INLINE is set, scoring in a background thread of this process "
            "(demo only)",
            run_id,
        )
        threading.Thread(target=_run_inline, args=(run_id,), name=f"score-run-{run_id}").start()
        return
    try:
        if redis_answers():
            queue = django_rq.get_queue(name, commit_mode="auto")
            queue.enqueue(JOB_PATH, run_id, job_id=job_id(run_id, attempt))
            return
    except (RedisError, OSError) as exc:
        log.warning("run %s: enqueue failed (%s)", run_id, exc)
    log.warning(
        "run %s: Redis does not answer; it stays queued until the reaper enqueues it", run_id
    )


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
    queued = Run.objects.queued()
    rescores = Q(rescore_of__isnull=False)
    submitted = queued.exclude(rescores).filter(submitter__isnull=False)
    bulk = queued.exclude(rescores).filter(submitter__isnull=True)
    queue = queue_for(run)
    if queue == QUEUE_NAME:
        return submitted.filter(ahead).count() + 1
    if queue == BULK_QUEUE_NAME:
        return submitted.count() + bulk.filter(ahead).count() + 1
    # A rescoring waits for every submission and bulk load, then the rescorings before it.
    return submitted.count() + bulk.count() + queued.filter(ahead).filter(rescores).count() + 1


def wait_estimate(position: int | None) -> dict[str, float | int] | None:
    """Roughly how long until a run at `position` is scored: the position times the median
    scoring time of the last RECENT_RUNS runs (one worker's pace); None with no history."""
    if position is None:
        return None
    durations = Run.objects.recent_scoring_seconds(RECENT_RUNS)
    if not durations:
        return None
    median = statistics.median(durations)
    return {
        "seconds": round(position * median),
        "median_scoring_seconds": round(median, 1),
        "from_runs": len(durations),
    }
