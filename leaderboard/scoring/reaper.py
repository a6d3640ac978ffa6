"""The reaper: recover runs whose rq job died, whichever way it died.

`reap_stale_runs()` re-queues RUNNING runs whose attempt died (bounded by SCORING_MAX_ATTEMPTS)
or fails them with a reason, and gives a QUEUED run whose job will never claim it (missing,
failed, stopped, or started on a worker that is gone) a new job. Every state change is a
conditional UPDATE and a duplicate job finds nothing to claim, so it is safe to run at any time
and from several machines.
"""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone
from redis import Redis
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.worker import Worker

from evaluation.surface import pid_alive
from leaderboard.models import REQUEUED, Run, RunEvent
from leaderboard.scoring import processes, queueing
from leaderboard.scoring.jobs import requeue_attempt

# A worker that has not sent a heartbeat for this long is dead (rq's default worker TTL is 420 s).
HEARTBEAT_GRACE_SECONDS = 600


def reap_stale_runs(now: datetime | None = None) -> dict[str, list[int]]:
    """Re-queue RUNNING runs whose scoring attempt died, while attempts remain; fail the rest.

    An attempt is dead when it outlived SCORING_STALE_AFTER_SECONDS (longer than the job
    timeout, so a live attempt is never judged by the clock: rq would have stopped it), or when
    Redis says so (`attempt_is_dead`): the work-horse that scores the run decides, not only its
    parent worker. An attempt judged dead whose process still runs on this host is killed, with
    its TLC JVMs, before the run is re-queued, so two attempts never score one run at once. Also
    re-enqueues QUEUED runs whose rq job vanished (e.g. Redis lost its data).
    """
    now = now or timezone.now()
    stale_before = now - timedelta(seconds=settings.SCORING_STALE_AFTER_SECONDS)
    redis = _redis_or_none()
    if redis is not None:
        _let_rq_mark_abandoned_jobs(redis)
    outcome: dict[str, list[int]] = {"requeued": [], "failed": [], "reenqueued": []}
    for run in Run.objects.running().order_by("pk"):
        job = _job_or_none(redis, run)
        if not _attempt_died(run, stale_before, job):
            continue
        _stop_attempt(run, job)
        if run.attempts < settings.SCORING_MAX_ATTEMPTS:
            if requeue_attempt(run, f"the worker of attempt {run.attempts} died; {REQUEUED}"):
                outcome["requeued"].append(run.pk)
        elif run.fail(
            f"the scoring worker stopped without finishing {run.attempts} time(s) "
            f"(limit {settings.SCORING_MAX_ATTEMPTS}); the spec may exhaust the worker's "
            "memory or time. Resubmit, or contact the maintainers if it persists."
        ):
            outcome["failed"].append(run.pk)
    if redis is not None:
        outcome["reenqueued"] = _reenqueue_lost(redis, now)
    return outcome


def _let_rq_mark_abandoned_jobs(redis: Redis) -> None:
    # rq's own judgment of a started job whose worker stopped sending heartbeats (its entry in
    # the started registry expired): the job becomes FAILED, which the checks below read.
    for name in settings.RQ_QUEUES:  # the submissions' queue and the bulk loads' alike
        StartedJobRegistry(name, connection=redis).cleanup()


def _redis_or_none() -> Redis | None:
    if settings.RQ_FORCE_INLINE or not queueing.redis_answers():
        return None
    return queueing.redis_connection()


def _job_or_none(redis: Redis | None, run: Run, attempt: int | None = None) -> Job | None:
    """The rq job of `run`'s `attempt` (its current one by default)."""
    if redis is None:
        return None
    try:
        return Job.fetch(queueing.job_id(run.pk, attempt or run.attempts), connection=redis)
    except NoSuchJobError:
        return None


def _attempt_died(run: Run, stale_before: datetime, job: Job | None) -> bool:
    if run.started_at is None or run.started_at < stale_before:
        return True
    return job is not None and attempt_is_dead(job)


def attempt_is_dead(job: Job) -> bool:
    """True when the run's rq job is certainly not being worked on. (A run without a job may be
    scoring in-process; only the staleness rule judges it.)"""
    scorer = job.meta.get("scorer") if job.meta else None
    if scorer and processes.is_local(scorer):
        # The work-horse itself: alive even when its parent worker was killed (it scores on
        # and ends the run), dead even when the parent still runs.
        return not processes.alive(scorer)
    return job_is_dead(job)


def job_is_dead(job: Job) -> bool:
    """What rq knows without the work-horse: job status, parent worker and its heartbeat (for an
    attempt on another host, or one that has not announced itself yet)."""
    if job.get_status(refresh=True) != "started":
        return True
    worker = None
    if job.worker_name:
        worker = Worker.find_by_key(f"rq:worker:{job.worker_name}", connection=job.connection)
    if worker is None:
        return True
    if worker.hostname == socket.gethostname() and worker.pid and not pid_alive(worker.pid):
        return True
    beat = worker.last_heartbeat
    silent_since = timezone.now() - timedelta(seconds=HEARTBEAT_GRACE_SECONDS)
    return bool(beat and beat.replace(tzinfo=beat.tzinfo or UTC) < silent_since)


def _stop_attempt(run: Run, job: Job | None) -> None:
    scorer = (job.meta.get("scorer") if job is not None and job.meta else None) or {}
    if scorer and processes.stop(scorer):
        run.record(
            RunEvent.Event.STOPPED,
            f"stopped attempt {run.attempts} (pid {scorer['pid']}) before re-queueing",
        )


# A job in one of these states has ended (or was stopped) without claiming its QUEUED run.
ENDED = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED, JobStatus.FINISHED}


def _reenqueue_lost(redis: Redis, now: datetime) -> list[int]:
    """QUEUED runs older than a minute whose rq job will never claim them get a new job: the
    job is missing (Redis lost it, or the enqueue never happened: Redis was down at submission),
    ended without claiming (a worker took it while the database was down: it raised before the
    claim), or started on a worker that is gone (killed between taking the job and claiming)."""
    lost = []
    for run in Run.objects.queued().filter(created_at__lt=now - timedelta(minutes=1)):
        job = _job_or_none(redis, run, run.attempts + 1)
        if job is not None and not _never_claims(job):
            continue
        if not Run.objects.queued().filter(pk=run.pk, attempts=run.attempts).exists():
            continue  # claimed meanwhile: its job was alive after all
        if job is not None:
            job.delete()  # out of the failed registry: the new job takes its id
        queueing.enqueue_run(run)
        lost.append(run.pk)
    return lost


def _never_claims(job: Job) -> bool:
    status = job.get_status(refresh=True)
    if status in ENDED:
        return True
    return status == JobStatus.STARTED and attempt_is_dead(job)
