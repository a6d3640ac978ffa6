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
from datetime import datetime
from importlib import import_module

import django_rq
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from redis import Redis
from redis.exceptions import RedisError

from leaderboard.models import Run

QUEUE_NAME = "evaluation"
BULK_QUEUE_NAME = "evaluation-bulk"
RESCORE_QUEUE_NAME = "evaluation-rescore"
# How many recently scored runs of each queue the wait estimate takes the mean of.
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


def _ahead(run: Run) -> dict[str, int]:
    """How many queued runs of each queue a worker takes before `run` (the queue order of the
    module's docstring)."""
    ahead = Q(created_at__lt=run.created_at) | Q(created_at=run.created_at, pk__lt=run.pk)
    queued = Run.objects.queued()
    rescores = Q(rescore_of__isnull=False)
    submitted = queued.exclude(rescores).filter(submitter__isnull=False)
    bulk = queued.exclude(rescores).filter(submitter__isnull=True)
    queue = queue_for(run)
    if queue == QUEUE_NAME:
        return {QUEUE_NAME: submitted.filter(ahead).count()}
    if queue == BULK_QUEUE_NAME:
        return {QUEUE_NAME: submitted.count(), BULK_QUEUE_NAME: bulk.filter(ahead).count()}
    # A rescoring waits for every submission and bulk load, then the rescorings before it.
    return {
        QUEUE_NAME: submitted.count(),
        BULK_QUEUE_NAME: bulk.count(),
        RESCORE_QUEUE_NAME: queued.filter(ahead).filter(rescores).count(),
    }


def queue_position(run: Run) -> int | None:
    """1 for the next run a worker will take; None when the run is not waiting."""
    if run.status != Run.Status.QUEUED:
        return None
    return sum(_ahead(run).values()) + 1


def _queue_of(submitter_id: int | None, rescore_of_id: int | None) -> str:
    """`queue_for` from the two fields it reads, for rows read as values."""
    if rescore_of_id is not None:
        return RESCORE_QUEUE_NAME
    return BULK_QUEUE_NAME if submitter_id is None else QUEUE_NAME


def mean_scoring_seconds() -> dict[str, tuple[float, int]]:
    """Per queue, the mean claim-to-end time of its last RECENT_RUNS scored runs and how many
    that is: a bulk load of the archive takes minutes where a user's small spec takes seconds,
    so each queue's runs are timed by their own kind. A queue with no history yet borrows the
    mean of all of them."""
    means: dict[str, tuple[float, int]] = {}
    everyone: list[float] = []
    for name in (QUEUE_NAME, BULK_QUEUE_NAME, RESCORE_QUEUE_NAME):
        runs = Run.objects.filter(_queue_filter(name))
        durations = runs.recent_scoring_seconds(RECENT_RUNS)
        everyone += durations
        if durations:
            means[name] = (statistics.fmean(durations), len(durations))
    if everyone:
        fallback = (statistics.fmean(everyone), len(everyone))
        for name in (QUEUE_NAME, BULK_QUEUE_NAME, RESCORE_QUEUE_NAME):
            means.setdefault(name, fallback)
    return means


def _queue_filter(name: str) -> Q:
    if name == RESCORE_QUEUE_NAME:
        return Q(rescore_of__isnull=False)
    return Q(rescore_of__isnull=True, submitter__isnull=name == BULK_QUEUE_NAME)


def _in_progress_seconds(means: dict[str, tuple[float, int]], now: datetime) -> float:
    """What the runs being scored now still need: each its queue's mean less the time it has
    run already (never below zero: one running long is expected to end any moment)."""
    left = 0.0
    rows = (
        Run.objects.in_flight(now)
        .running()
        .values_list("submitter_id", "rescore_of_id", "started_at")
    )
    for submitter_id, rescore_of_id, started_at in rows:
        mean = means[_queue_of(submitter_id, rescore_of_id)][0]
        elapsed = (now - started_at).total_seconds() if started_at else 0.0
        left += max(0.0, mean - elapsed)
    return left


def wait_estimate(run: Run) -> dict[str, float | int] | None:
    """Roughly how long until the queued `run` is scored, at one worker's pace: what the runs
    in progress still need, each queued run ahead of it at its queue's mean, and its own
    scoring; None for a run not waiting, or with no history to measure by."""
    if run.status != Run.Status.QUEUED:
        return None
    means = mean_scoring_seconds()
    if not means:
        return None
    now = timezone.now()
    ahead = _ahead(run)
    waiting = sum(count * means[name][0] for name, count in ahead.items())
    in_progress = _in_progress_seconds(means, now)
    own, from_runs = means[queue_for_kind(run)]
    return {
        "seconds": round(in_progress + waiting + own),
        "position": sum(ahead.values()) + 1,
        "in_progress_seconds": round(in_progress),
        "mean_scoring_seconds": round(own, 1),
        "from_runs": from_runs,
    }


def queue_for_kind(run: Run) -> str:
    """The queue `run` belongs to by its kind, whatever queues this configuration has (the
    estimate times a bulk load as one even where all share one queue)."""
    return _queue_of(run.submitter_id, run.rescore_of_id)
