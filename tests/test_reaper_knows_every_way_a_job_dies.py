"""The reaper knows every way a run's rq job dies, not only a missing one: a job that failed
before it claimed its run (a worker took it while the database was down), a job started on a
worker that is gone, a run whose enqueue never happened (Redis was down at submission), and a
scoring attempt whose database connection was lost. Each run gets a new job or attempt; a job
that is alive keeps its run. (Issue 21: after a PostgreSQL restart runs stayed queued forever.)
"""

import subprocess
import threading
from datetime import timedelta
from unittest import mock

import pytest
from django.db import OperationalError
from django.utils import timezone
from rq.job import Job, JobStatus

from leaderboard.models import Run
from leaderboard.scoring import processes
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.scoring.queueing import enqueue_run, job_id, redis_connection
from leaderboard.scoring.reaper import reap_stale_runs
from tests.base import make_model, make_run, make_task
from tests.rq_worker import finish_worker, start_worker

NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1
NO_DATABASE = "sqlite:////nonexistent-directory/database.sqlite3"


def queued_run(task_slug: str = "spin", minutes_ago: int = 2) -> Run:
    """A QUEUED run old enough for the reaper to judge its job."""
    run = make_run(make_model(), make_task(task_slug), status=Run.Status.QUEUED)
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(minutes=minutes_ago))
    run.refresh_from_db()
    return run


def reap() -> dict[str, list[int]]:
    """The reaper, with the enqueues it leaves for the end of the transaction done at once."""
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        return reap_stale_runs()


def the_job(run: Run) -> Job:
    return Job.fetch(job_id(run.pk, run.attempts + 1), connection=redis_connection())


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_job_that_failed_before_claiming_gets_a_new_one_which_a_worker_runs(rq_redis, tmp_path):
    # A task without a contract fails fast once claimed: the second worker proves it claimed.
    run = queued_run(task_slug="no-such-contract")
    enqueue_run(run)
    output = finish_worker(
        start_worker(rq_redis, tmp_path / "down.log", DATABASE_URL=NO_DATABASE), timeout=120
    )
    assert the_job(run).get_status() == JobStatus.FAILED, output[-2000:]
    run.refresh_from_db()
    assert (run.status, run.attempts) == (Run.Status.QUEUED, 0)

    assert reap()["reenqueued"] == [run.pk]
    assert the_job(run).get_status() == JobStatus.QUEUED

    output = finish_worker(start_worker(rq_redis, tmp_path / "up.log"), timeout=120)
    run.refresh_from_db()
    assert (run.status, run.attempts) == (Run.Status.FAILED, 1), output[-2000:]
    assert "task contract error" in run.failure_reason


@pytest.mark.redis
@pytest.mark.django_db
def test_a_job_started_on_a_dead_horse_before_the_claim_gets_a_new_one(rq_redis):
    run = queued_run()
    gone = subprocess.Popen(["true"])
    gone.wait()
    started_job(run, {**processes.identity(), "pid": gone.pid, "start": 1})
    assert reap()["reenqueued"] == [run.pk]
    assert the_job(run).get_status() == JobStatus.QUEUED


@pytest.mark.redis
@pytest.mark.django_db
def test_a_job_started_on_a_live_horse_keeps_its_queued_run(rq_redis):
    run = queued_run()
    horse = subprocess.Popen(["sleep", "60"])
    try:
        identity = {**processes.identity(), "pid": horse.pid}
        identity["start"] = processes.start_time(horse.pid)
        started_job(run, identity)
        assert reap()["reenqueued"] == []
        assert the_job(run).get_status() == JobStatus.STARTED
    finally:
        horse.kill()
        horse.wait()


def started_job(run: Run, scorer: dict) -> Job:
    import django_rq

    queue = django_rq.get_queue("evaluation", commit_mode="auto")
    job = queue.enqueue(
        "leaderboard.scoring.jobs.evaluate_run", run.pk, job_id=job_id(run.pk, run.attempts + 1)
    )
    job.set_status("started")
    job.worker_name = "killed-parent"
    job.meta["scorer"] = scorer
    job.save()
    return job


@pytest.mark.django_db(transaction=True)
def test_a_submission_while_redis_is_down_stays_queued_and_the_reaper_enqueues_it(settings):
    settings.RQ_QUEUES = {"evaluation": {"URL": NO_REDIS}}
    settings.RQ_FORCE_INLINE = False
    run = queued_run()
    threads_before = set(threading.enumerate())
    enqueue_run(run)  # outside a transaction: dispatched at once, and it fails
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED
    assert not [t for t in set(threading.enumerate()) - threads_before if "score-run" in t.name]


@pytest.mark.redis
@pytest.mark.django_db
def test_a_queued_run_without_a_job_gets_one_once_redis_answers(rq_redis):
    run = queued_run()  # its enqueue never reached Redis
    assert reap()["reenqueued"] == [run.pk]
    assert the_job(run).get_status() == JobStatus.QUEUED


@pytest.mark.redis
@pytest.mark.django_db
def test_a_young_queued_run_is_left_to_its_own_enqueue(rq_redis):
    run = queued_run(minutes_ago=0)
    assert reap()["reenqueued"] == []
    assert not Job.exists(job_id(run.pk, 1), connection=redis_connection())


@pytest.mark.django_db(transaction=True)
def test_a_lost_database_connection_mid_scoring_requeues_the_attempt(settings):
    settings.RQ_QUEUES = {"evaluation": {"URL": NO_REDIS}}
    settings.RQ_FORCE_INLINE = False
    settings.SCORING_MAX_ATTEMPTS = 3
    run = queued_run()
    lost = OperationalError("server closed the connection unexpectedly")
    with mock.patch("leaderboard.scoring.jobs._load_inputs", side_effect=lost):
        assert evaluate_run(run.pk) == Run.Status.QUEUED
    run.refresh_from_db()
    assert (run.status, run.attempts, run.overall) == (Run.Status.QUEUED, 1, None)
    assert run.requeue_notes() == [
        "attempt 1: the database connection was lost (server closed the connection "
        "unexpectedly); not the spec's result, re-queued"
    ]


@pytest.mark.django_db(transaction=True)
def test_a_lost_database_connection_on_the_last_attempt_could_not_be_scored(settings):
    settings.RQ_QUEUES = {"evaluation": {"URL": NO_REDIS}}
    settings.SCORING_MAX_ATTEMPTS = 1
    run = queued_run()
    with mock.patch("leaderboard.scoring.jobs._load_inputs", side_effect=OperationalError("gone")):
        assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    assert run.failure_reason.startswith("could not be scored: the database connection was lost")
    assert run.overall is None and not run.phase_results.exists()


def fake_process(proc_root, pid: int, flags: int, sigpnd: str, shdpnd: str = "0" * 16) -> dict:
    """A /proc entry as the kernel shows a process: stat fields 3.. after the command, and the
    pending-signal masks of status. Its start time (field 22) is 4242."""
    entry = proc_root / str(pid)
    entry.mkdir()
    after_comm = ["R", "1", str(pid), str(pid), "0", "-1", str(flags)] + ["0"] * 12 + ["4242"]
    (entry / "stat").write_text(f"{pid} (rqworker horse) {' '.join(after_comm)} 0 0\n")
    (entry / "status").write_text(f"Name:\tpython\nSigPnd:\t{sigpnd}\nShdPnd:\t{shdpnd}\n")
    return {**processes.identity(), "pid": pid, "start": 4242}


def test_a_horse_killed_a_moment_ago_is_dead_before_it_has_finished_exiting(tmp_path, monkeypatch):
    # On a loaded machine the kernel may take seconds to tear a SIGKILLed horse down; /proc
    # still lists it with its start time meanwhile (docs/decisions/0003-no-run-left-behind.md: the
    # reaper re-queued nothing).
    monkeypatch.setattr(processes, "PROC", tmp_path)
    running = fake_process(tmp_path, 101, flags=0x400100, sigpnd="0" * 16)
    kill_pending = fake_process(tmp_path, 102, flags=0x400100, sigpnd="0000000000000100")
    group_kill_pending = fake_process(tmp_path, 103, flags=0x400100, sigpnd="0" * 16,
                                      shdpnd="0000000000000100")  # fmt: skip
    exiting = fake_process(tmp_path, 104, flags=0x400104, sigpnd="0" * 16)
    other_signal = fake_process(tmp_path, 105, flags=0x400100, sigpnd="0000000000004000")
    assert processes.alive(running) and processes.alive(other_signal)
    assert not processes.alive(kill_pending)
    assert not processes.alive(group_kill_pending)
    assert not processes.alive(exiting)
