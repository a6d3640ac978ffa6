"""The reaper judges the process that scores (rq's work-horse), not only its parent worker, and
stops an old attempt, with what it started, before re-queueing its run.

Issue 10, hole 9: a SIGKILLed main `rqworker` left its work-horse scoring; the reaper saw the
parent gone, re-queued, and the run was scored twice at once.
"""

import subprocess
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import Run
from leaderboard.scoring import processes
from leaderboard.scoring.queueing import job_id
from leaderboard.scoring.reaper import reap_stale_runs
from tests.base import make_model, make_run, make_task

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


def running_run(started_ago: timedelta) -> Run:
    run = make_run(make_model(), make_task("spin"))
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, started_at=timezone.now() - started_ago, attempts=1
    )
    run.refresh_from_db()
    return run


def started_job(run: Run, scorer: dict):
    """The rq job of attempt 1 as a worker whose key is gone (the parent was killed) left it,
    with the work-horse's identity as `evaluate_run` records it."""
    import django_rq

    queue = django_rq.get_queue("evaluation", commit_mode="auto")
    job = queue.enqueue("leaderboard.scoring.jobs.evaluate_run", run.pk, job_id=job_id(run.pk, 1))
    job.set_status("started")
    job.worker_name = "killed-parent"
    job.meta["scorer"] = scorer
    job.save()
    return job


def identity_of(proc: subprocess.Popen) -> dict:
    host = processes.identity()["host"]
    start = processes.start_time(proc.pid)
    return {"host": host, "pid": proc.pid, "pgid": proc.pid, "start": start}


def a_horse(command: str) -> subprocess.Popen:
    proc = subprocess.Popen(["sh", "-c", command], start_new_session=True)
    time.sleep(0.3)  # let it start its children
    return proc


def test_a_live_work_horse_keeps_its_run_when_its_parent_worker_is_gone(
    rq_redis, django_capture_on_commit_callbacks
):
    run = running_run(timedelta(seconds=5))
    horse = a_horse("sleep 60")
    try:
        started_job(run, identity_of(horse))
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            outcome = reap_stale_runs()
        assert outcome["requeued"] == [] and callbacks == []
        run.refresh_from_db()
        assert (run.status, run.attempts) == (Run.Status.RUNNING, 1)
        assert horse.poll() is None
    finally:
        horse.kill()
        horse.wait()


def test_a_dead_work_horse_is_dead_even_when_its_identity_names_a_reused_pid(
    rq_redis, django_capture_on_commit_callbacks
):
    run = running_run(timedelta(seconds=5))
    horse = a_horse("sleep 60")
    try:
        reused = {**identity_of(horse), "start": processes.start_time(horse.pid) - 1}
        started_job(run, reused)
        with django_capture_on_commit_callbacks(execute=False):
            outcome = reap_stale_runs()
        assert outcome["requeued"] == [run.pk]
        assert horse.poll() is None  # not ours to kill: a different process under that pid
    finally:
        horse.kill()
        horse.wait()


def test_an_attempt_past_the_stale_limit_is_stopped_with_its_own_sessions_before_requeueing(
    rq_redis, settings, django_capture_on_commit_callbacks
):
    settings.SCORING_STALE_AFTER_SECONDS = 600
    run = running_run(timedelta(minutes=11))
    # A horse with a child in a session of its own, as the sandbox starts each TLC JVM.
    horse = a_horse("setsid sleep 300 & wait")
    jvm_like = processes.descendants(horse.pid)
    assert jvm_like, "the horse's child did not start"
    try:
        started_job(run, identity_of(horse))
        with django_capture_on_commit_callbacks(execute=False):
            outcome = reap_stale_runs()
        assert outcome["requeued"] == [run.pk]
        horse.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(processes.start_time(p) for p in jvm_like) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in jvm_like if processes.start_time(p)]
        run.refresh_from_db()
        assert run.status == Run.Status.QUEUED
        assert f"stopped attempt 1 (pid {horse.pid}) before re-queueing" in run.log
    finally:
        horse.kill()
        horse.wait()
        for pid in jvm_like:
            subprocess.run(["kill", "-9", str(pid)], stderr=subprocess.DEVNULL)
